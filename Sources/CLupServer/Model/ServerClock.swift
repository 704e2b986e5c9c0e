import Foundation
import KioskCore

/// The server's wall clock (the core never reads one).
enum ServerClock {
    static func now() -> Timestamp { Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000)) }
}
