import Foundation
import KioskCore

extension Timestamp {
    /// Seconds local time is ahead of UTC at this moment (daylight saving included).
    static func utcOffset(at time: Timestamp) -> Int {
        TimeZone.current.secondsFromGMT(for: Date(timeIntervalSince1970: Double(time.milliseconds) / 1000))
    }

    /// Local date and time as printed on a ticket: `2026-11-22 09:41`.
    static func localText(_ time: Timestamp) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        formatter.timeZone = .current
        return formatter.string(from: Date(timeIntervalSince1970: Double(time.milliseconds) / 1000))
    }
}
