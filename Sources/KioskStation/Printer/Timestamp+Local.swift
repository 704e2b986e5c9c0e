import Glibc
import KioskCore

/// Local time, from the system's zone (`TZ`, else `/etc/localtime`) through the C library. Not through
/// Foundation's TimeZone and DateFormatter: those load ICU's tables, about 5 MB of a kiosk's resident memory
/// for two numbers and a date.
extension Timestamp {
    /// Seconds local time is ahead of UTC at this moment (daylight saving included).
    static func utcOffset(at time: Timestamp) -> Int {
        Int(local(time).tm_gmtoff)
    }

    /// Local date and time as printed on a ticket: `2026-11-22 09:41`.
    static func localText(_ time: Timestamp) -> String {
        let t = local(time)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(t.tm_year + 1900)-\(two(t.tm_mon + 1))-\(two(t.tm_mday)) \(two(t.tm_hour)):\(two(t.tm_min))"
    }

    private static func local(_ time: Timestamp) -> tm {
        var seconds = time_t(time.seconds)
        var fields = tm()
        localtime_r(&seconds, &fields)
        return fields
    }
}
