import KioskCore

/// Times as a store's people read them: its local wall clock (the store's time zone, daylight saving
/// included), for slot times and days on the pages, and the hours of its day report.
struct StoreClock {
    let zone: StoreTimeZone

    init(_ profile: StoreProfile) { zone = profile.zone }

    /// The local day of `milliseconds` since 1970, as days since 1970-01-01.
    func day(_ milliseconds: Int64) -> Int64 {
        BusinessDay(localDateOf: Timestamp(milliseconds: milliseconds), zone: zone).number
    }

    /// Minutes after local midnight.
    func minuteOfDay(_ milliseconds: Int64) -> Int64 {
        let local = zone.localSeconds(at: Timestamp(milliseconds: milliseconds))
        return (local - local.floorDivided(by: 86_400) * 86_400) / 60
    }

    /// `HH:MM`, local.
    func time(_ milliseconds: Int64) -> String {
        let minutes = minuteOfDay(milliseconds)
        return Self.twoDigits(minutes / 60) + ":" + Self.twoDigits(minutes % 60)
    }

    /// The local midnight that starts a day number, as milliseconds since 1970 (where the clock skips
    /// midnight, the first minute it shows).
    func midnight(_ day: Int64) -> Int64 {
        BusinessDay(number: day).instant(secondsAfterMidnight: 0, zone: zone).milliseconds
    }

    /// `YYYY-MM-DD` of a day number.
    static func date(_ day: Int64) -> String { BusinessDay(number: day).dateText }

    /// The weekday's name and the date of a day number, e.g. `Tuesday 2026-11-24`.
    static func dayText(_ day: Int64, _ strings: PageStrings) -> String {
        "\(strings["weekday.\(BusinessDay(number: day).weekday)"]) \(date(day))"
    }

    /// The weekday and date of `milliseconds`, local.
    func dayText(_ milliseconds: Int64, _ strings: PageStrings) -> String { Self.dayText(day(milliseconds), strings) }

    private static func twoDigits(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
