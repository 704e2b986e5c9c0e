/// The store's business day: the day number that ticket codes restart on.
///
/// A day begins at the configured opening time in local time, so tickets printed after midnight in a store
/// open late still count on the evening's day. The caller passes the local UTC offset (it knows the zone).
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

    /// The instant this business day starts: its opening time, local time.
    public func start(openingTime: Int, utcOffset: Int) -> Timestamp {
        Timestamp(milliseconds: (number * 86_400 + Int64(openingTime) - Int64(utcOffset)) * 1000)
    }

    /// The local calendar day of `time` (a business day that starts at midnight).
    public init(localDateOf time: Timestamp, utcOffsetMinutes: Int) {
        self.init(at: time, openingTime: 0, utcOffset: utcOffsetMinutes * 60)
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
