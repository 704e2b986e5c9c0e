import Foundation
import KioskCore
import Synchronization

/// The wall clock a station or the server reads (the core never reads one: it is handed times).
///
/// `system` in production. A test can shift it, so that a booked slot comes, or a called ticket's window
/// passes, without waiting for it: every part of a station or server given the same clock sees the same time.
public struct WallClock: Sendable {
    private let offset: Offset?

    /// The system's clock.
    public static let system = WallClock(offset: nil)

    /// The system's clock plus `offset`, which can be moved forward while running.
    public static func shifted(by offset: Offset) -> WallClock { WallClock(offset: offset) }

    public func now() -> Timestamp {
        let system = Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
        guard let offset else { return system }
        return system + offset.value
    }

    /// How far a shifted clock is ahead of the system's.
    public final class Offset: Sendable {
        private let shift = Mutex(Duration.zero)

        public init() {}

        public var value: Duration { shift.withLock { $0 } }

        public func advance(by duration: Duration) {
            shift.withLock { $0 += duration }
        }
    }
}
