/// The store's business day: the day number that ticket codes restart on.
///
/// A day begins at the configured opening time in local time, so tickets printed after midnight in a store
/// open late still count on the evening's day. Local time is the store's ``StoreTimeZone``, so a day that is 23 or
/// 25 hours long (daylight saving) still starts at the opening time.
public struct BusinessDay: Sendable, Hashable, Codable, Comparable {
    public var number: Int64

    public init(number: Int64) {
        self.number = number
    }

    /// - Parameters:
    ///   - openingTime: seconds after local midnight when the day starts (e.g. 7 h = 25 200).
    ///   - utcOffset: seconds local time is ahead of UTC at `time`.
    public init(at time: Timestamp, openingTime: Int, utcOffset: Int) {
        let local = time.seconds + Int64(utcOffset) - Int64(openingTime)
        number = local.floorDivided(by: 86_400)
    }

    /// The calendar day of a civil date, e.g. 2026-03-29 (Howard Hinnant's days from civil).
    public init(year: Int64, month: Int64, day: Int64) {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        number = era * 146_097 + doe - 719_468
    }

    /// Year, month (1…12) and day (1…31) of this calendar day (Howard Hinnant's civil from days).
    public var civilDate: (year: Int64, month: Int64, day: Int64) {
        let z = number + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// `YYYY-MM-DD`, as tickets, pages and logs write the day (no Foundation formatter: see ``civilDate``).
    public var dateText: String {
        let (y, m, d) = civilDate
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(y)-\(two(m))-\(two(d))"
    }

    /// The business day at `time` in the store's zone.
    public init(at time: Timestamp, openingTime: Int, zone: StoreTimeZone) {
        self.init(at: time, openingTime: openingTime, utcOffset: zone.offset(at: time))
    }

    /// The instant this business day starts: its opening time on the store's clock (when the clock skips that
    /// time, as much later as it skips; when it shows it twice, the first).
    public func start(openingTime: Int, zone: StoreTimeZone) -> Timestamp {
        instant(secondsAfterMidnight: openingTime, zone: zone)
    }

    /// The local calendar day of `time` (a business day that starts at midnight).
    public init(localDateOf time: Timestamp, zone: StoreTimeZone) {
        self.init(at: time, openingTime: 0, zone: zone)
    }

    /// The instant the store's clock shows `secondsAfterMidnight` on this (calendar) day.
    public func instant(secondsAfterMidnight: Int, zone: StoreTimeZone) -> Timestamp {
        zone.instant(localSeconds: number * 86_400 + Int64(secondsAfterMidnight))
    }

    /// Day of the week, Monday = 0 … Sunday = 6 (day 0, 1970-01-01, was a Thursday).
    public var weekday: Int { Int(((number + 3) % 7 + 7) % 7) }

    public static func < (a: Self, b: Self) -> Bool { a.number < b.number }
}

/// A local time of day, written `HH:MM` in configuration.
public struct TimeOfDay: Sendable, Hashable, Codable, CustomStringConvertible {
    public var secondsAfterMidnight: Int

    public init(hour: Int, minute: Int) {
        secondsAfterMidnight = hour * 3600 + minute * 60
    }

    public init?(_ text: String) {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts[0].count <= 2, parts[1].count == 2, let h = Int(parts[0]), let m = Int(parts[1]),
            (0...23).contains(h), (0...59).contains(m)
        else { return nil }
        self.init(hour: h, minute: m)
    }

    public var description: String {
        let h = secondsAfterMidnight / 3600
        let m = secondsAfterMidnight / 60 % 60
        return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
    }
}
