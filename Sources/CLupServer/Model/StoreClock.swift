import KioskCore

/// Times as a store's people read them: its local wall clock (the store's UTC offset), for slot times and
/// days on the pages, and the hours of its day report.
struct StoreClock {
    let offsetMilliseconds: Int64

    init(_ profile: StoreProfile) { offsetMilliseconds = Int64(profile.utcOffsetMinutes) * 60_000 }

    /// The local day of `milliseconds` since 1970, as days since 1970-01-01.
    func day(_ milliseconds: Int64) -> Int64 {
        let local = milliseconds + offsetMilliseconds
        return local >= 0 ? local / 86_400_000 : (local - 86_399_999) / 86_400_000
    }

    /// Minutes after local midnight.
    func minuteOfDay(_ milliseconds: Int64) -> Int64 {
        (milliseconds + offsetMilliseconds - day(milliseconds) * 86_400_000) / 60_000
    }

    /// `HH:MM`, local.
    func time(_ milliseconds: Int64) -> String {
        let minutes = minuteOfDay(milliseconds)
        return Self.twoDigits(minutes / 60) + ":" + Self.twoDigits(minutes % 60)
    }

    /// The local midnight that starts a day number, as milliseconds since 1970.
    func midnight(_ day: Int64) -> Int64 { day * 86_400_000 - offsetMilliseconds }

    /// `YYYY-MM-DD` of a day number.
    static func date(_ day: Int64) -> String {
        // Civil from days (Howard Hinnant's algorithm).
        let z = day + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return "\(y)-\(twoDigits(m))-\(twoDigits(d))"
    }

    /// The weekday's name and the date of a day number, e.g. `Tuesday 2026-11-24`.
    static func dayText(_ day: Int64, _ strings: PageStrings) -> String {
        "\(strings["weekday.\(BusinessDay(number: day).weekday)"]) \(date(day))"
    }

    /// The weekday and date of `milliseconds`, local.
    func dayText(_ milliseconds: Int64, _ strings: PageStrings) -> String { Self.dayText(day(milliseconds), strings) }

    private static func twoDigits(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
