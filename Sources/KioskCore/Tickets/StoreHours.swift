/// A store's weekly opening hours, local time, Monday first, and when it hands out tickets while it is closed.
///
/// The store's manager sets them on clup-server; kiosks learn them by sync (their configuration is the
/// fallback of a kiosk that never synced). ``StoreCalendar`` puts them on the store's clock.
public struct StoreHours: Sendable, Hashable {
    /// One weekday's opening: from `open` to `close` (nil: open until the next opening, the behaviour of a
    /// kiosk configured with an opening time only).
    public struct Opening: Sendable, Hashable {
        public var open: TimeOfDay
        public var close: TimeOfDay?

        public init(open: TimeOfDay, close: TimeOfDay?) {
            self.open = open
            self.close = close
        }
    }

    /// Seven entries, Monday first; nil: closed all day.
    public private(set) var week: [Opening?]
    /// How long before opening tickets are handed out (nil: all the time the store is closed). Outside that
    /// window the printer presents no ticket and the app refuses, both saying when the store opens.
    public var ticketsBeforeOpening: Duration?

    /// The longest "tickets from … before opening" a store may choose: half a day; longer is all night.
    public static let maxTicketsBeforeOpening: Duration = .seconds(12 * 3600)

    /// - Throws: when `week` has not 7 entries, a closing time is not after its opening, or no day opens.
    public init(week: [Opening?], ticketsBeforeOpening: Duration? = nil) throws(StoreHoursError) {
        guard week.count == 7 else {
            throw StoreHoursError(field: nil, "needs 7 entries, Monday first (null = closed)")
        }
        for (day, opening) in week.enumerated() {
            guard let opening, let close = opening.close else { continue }
            if close.secondsAfterMidnight <= opening.open.secondsAfterMidnight {
                throw StoreHoursError(field: day, "the closing time must be after the opening time")
            }
        }
        guard week.contains(where: { $0 != nil }) else {
            throw StoreHoursError(field: nil, "at least one day must have opening hours")
        }
        if let before = ticketsBeforeOpening, before < .zero || before > Self.maxTicketsBeforeOpening {
            throw StoreHoursError(field: nil, "tickets before opening must be 0 to 720 minutes (or all night)")
        }
        self.week = week
        self.ticketsBeforeOpening = ticketsBeforeOpening
    }

    /// Every day open from `open`, until `close` (nil: until the next day's opening), except `closedDays`
    /// (Monday = 0).
    public static func daily(
        open: TimeOfDay,
        close: TimeOfDay? = nil,
        closedDays: Set<Int> = [],
        ticketsBeforeOpening: Duration? = nil
    ) throws(StoreHoursError) -> StoreHours {
        try StoreHours(
            week: (0..<7).map { closedDays.contains($0) ? nil : Opening(open: open, close: close) },
            ticketsBeforeOpening: ticketsBeforeOpening
        )
    }

    /// The legacy day: opens at 07:00, never closes, every day.
    public static let openAllDay = try! StoreHours.daily(open: TimeOfDay(hour: 7, minute: 0))
}

/// What is wrong with a week of opening hours; `field` is the weekday (Monday = 0) when one is to blame.
public struct StoreHoursError: Error, Sendable, Equatable, CustomStringConvertible {
    public var field: Int?
    public var message: String

    public init(field: Int?, _ message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { message }
}

extension TimeOfDay {
    /// `HH:MM`, or `24:00` for a closing time at midnight (the end of the day).
    public init?(closing text: String) {
        if text == "24:00" {
            self.init(hour: 24, minute: 0)
        } else {
            self.init(text)
        }
    }
}

/// The wire form (sync pages, the store's profile): `{"openingHours": [{"open": "07:00", "close": "21:00"},
/// null, …], "ticketsBeforeOpeningMinutes": 60}` — the field names of clup-server's store profile.
extension StoreHours: Codable {
    enum CodingKeys: String, CodingKey {
        case openingHours, ticketsBeforeOpeningMinutes
    }

    struct WireOpening: Codable {
        var open: String
        var close: String?
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let wire = try c.decode([WireOpening?].self, forKey: .openingHours)
        let week = try wire.map { day -> Opening? in
            guard let day else { return nil }
            guard let open = TimeOfDay(day.open), day.close.map({ TimeOfDay(closing: $0) != nil }) ?? true else {
                throw DecodingError.dataCorruptedError(
                    forKey: .openingHours,
                    in: c,
                    debugDescription: "times are HH:MM"
                )
            }
            return Opening(open: open, close: day.close.flatMap { TimeOfDay(closing: $0) })
        }
        let minutes = try c.decodeIfPresent(Int.self, forKey: .ticketsBeforeOpeningMinutes)
        guard minutes.map({ (0...720).contains($0) }) ?? true else {
            throw DecodingError.dataCorruptedError(
                forKey: .ticketsBeforeOpeningMinutes,
                in: c,
                debugDescription: "must be 0 to 720, or null for all night"
            )
        }
        do {
            try self.init(week: week, ticketsBeforeOpening: minutes.map { .seconds($0 * 60) })
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .openingHours, in: c, debugDescription: error.message)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        let wire = week.map { $0.map { WireOpening(open: $0.open.description, close: $0.close?.description) } }
        try c.encode(wire, forKey: .openingHours)
        try c.encodeIfPresent(
            ticketsBeforeOpening.map { Int($0.components.seconds / 60) },
            forKey: .ticketsBeforeOpeningMinutes
        )
    }
}
