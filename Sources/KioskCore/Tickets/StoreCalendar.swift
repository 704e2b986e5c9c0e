/// The store's hours on its own clock, and the one rule of the day's edges that kiosks and clup-server share:
///
/// - A business day runs from the previous opening day's closing to its own closing. A ticket taken while the
///   store is closed belongs to the next day it opens: that day's numbers, that day's line, in the order taken.
/// - Nobody is called or admitted while the store is closed; at opening the early line is called in order, as
///   far as capacity allows (``QueueState`` knows the day's hours from its ``StoreEvent/Body/dayStarted``).
/// - A ticket of a day whose opening hours ended unused is yesterday's: the next day's start expires it — unless
///   the store is open across the turn (no closing time: the day turns at the next opening; or it reopens within
///   ``shortestClosing``, as a round-the-clock store's 00:00–23:59 does): then the line and the count inside go
///   on, and nobody waiting loses their place (numbers start again at the new day's first).
/// - Tickets are handed out all the time the store is closed, or only from ``StoreHours/ticketsBeforeOpening``
///   before opening.
///
/// Days are calendar days of the store's zone (``BusinessDay``, numbered by the date the store opens on);
/// opening and closing times that the clock skips or shows twice (daylight saving) are read as
/// ``BusinessDay/instant(secondsAfterMidnight:zone:)`` reads them.
public struct StoreCalendar: Sendable, Hashable {
    public var hours: StoreHours
    public var zone: StoreTimeZone

    public init(hours: StoreHours, zone: StoreTimeZone) {
        self.hours = hours
        self.zone = zone
    }

    /// Where the store stands at an instant.
    public enum Phase: Sendable, Equatable {
        /// Open since `since`, until `closes` (nil: until the next day's opening).
        case open(BusinessDay, since: Timestamp, closes: Timestamp?)
        /// Closed until `opens`, the start of `day`; tickets (of `day`) are handed out from `ticketsFrom`.
        case closed(BusinessDay, opens: Timestamp, ticketsFrom: Timestamp)

        public var day: BusinessDay {
            switch self {
            case .open(let day, _, _), .closed(let day, _, _): day
            }
        }

        public var isOpen: Bool {
            if case .open = self { return true }
            return false
        }
    }

    /// The opening of a calendar day that has one.
    private func opening(_ day: BusinessDay) -> StoreHours.Opening? { hours.week[day.weekday] }

    /// The nearest day from `day` (included) in `direction` that opens; nil when the store never opens.
    private func openingDay(from day: BusinessDay, step: Int64) -> BusinessDay? {
        for n in 0..<8 {
            let candidate = BusinessDay(number: day.number + Int64(n) * step)
            if opening(candidate) != nil { return candidate }
        }
        return nil
    }

    /// When `day` opens (for a day without hours: when the next opening day opens).
    public func opens(_ day: BusinessDay) -> Timestamp {
        guard let open = openingDay(from: day, step: 1), let hours = opening(open) else {
            return day.instant(secondsAfterMidnight: 0, zone: zone)
        }
        return open.instant(secondsAfterMidnight: hours.open.secondsAfterMidnight, zone: zone)
    }

    /// When `day` closes: its closing time, or without one the next opening day's opening.
    public func closes(_ day: BusinessDay) -> Timestamp {
        if let close = opening(day)?.close {
            return day.instant(secondsAfterMidnight: close.secondsAfterMidnight, zone: zone)
        }
        return opens(BusinessDay(number: day.number + 1))
    }

    /// The closing time of `day` as the day's hours carry it (nil: open until the next opening).
    func closingTime(_ day: BusinessDay) -> Timestamp? {
        opening(day)?.close.map { day.instant(secondsAfterMidnight: $0.secondsAfterMidnight, zone: zone) }
    }

    /// The business day a ticket taken at `time` belongs to: the first day that opens and has not closed by
    /// then.
    public func businessDay(at time: Timestamp) -> BusinessDay {
        let date = BusinessDay(localDateOf: time, zone: zone)
        // A day without a closing time lasts until the next opening, which may be days later (closed days).
        var day = BusinessDay(number: date.number - 7)
        while let open = openingDay(from: day, step: 1), open.number <= date.number + 8 {
            if time < closes(open) { return open }
            day = BusinessDay(number: open.number + 1)
        }
        return date
    }

    /// When `day`'s line begins: the previous opening day's closing (tickets taken from then on are `day`'s).
    public func lineStarts(_ day: BusinessDay) -> Timestamp {
        guard let previous = openingDay(from: BusinessDay(number: day.number - 1), step: -1) else { return opens(day) }
        return min(closes(previous), opens(day))
    }

    /// A closing shorter than this between two days is no closing for the line: ``keepsLine(_:)``.
    public static let shortestClosing: Duration = .seconds(5 * 60)

    /// Whether `day`'s start keeps the line of the day before: the store closes for less than
    /// ``shortestClosing`` between them (not at all when the day before has no closing time).
    public func keepsLine(_ day: BusinessDay) -> Bool {
        opens(day) - lineStarts(day) < Self.shortestClosing
    }

    /// Where the store stands at `time`.
    public func phase(at time: Timestamp) -> Phase {
        let day = businessDay(at: time)
        let open = opens(day)
        if time >= open { return .open(day, since: open, closes: closingTime(day)) }
        let lineStart = lineStarts(day)
        let from = hours.ticketsBeforeOpening.map { max(open - $0, lineStart) } ?? lineStart
        return .closed(day, opens: open, ticketsFrom: from)
    }

    /// Whether tickets are handed out at `time` (open, or closed inside the window before opening).
    public func handsOutTickets(at time: Timestamp) -> Bool {
        switch phase(at: time) {
        case .open: true
        case .closed(_, _, let from): time >= from
        }
    }

    /// When `day` opens and closes, as its `dayStarted` carries it.
    public func hours(of day: BusinessDay) -> DayHours {
        DayHours(opens: opens(day), closes: closingTime(day))
    }

    /// The `dayStarted` event of `day`: at its line's start, with its hours (see ``DayHours``) and whether it
    /// keeps the line of the day before.
    public func dayStarted(_ day: BusinessDay, store: StoreID, device: DeviceID) -> StoreEvent {
        StoreEvent.dayStarted(
            day,
            hours: hours(of: day),
            keepsLine: keepsLine(day),
            store: store,
            device: device,
            at: lineStarts(day)
        )
    }

    /// The day's start said again with the hours these are now (the store's manager changed them after the
    /// day's line began): an event of its own (a fresh id), which the fold takes as the day's new hours.
    /// With `as` another day: the day keeps its number and takes that day's hours (a day that had not opened
    /// yet, when new hours make the store open now).
    public func dayRestated(
        _ day: BusinessDay,
        as other: BusinessDay? = nil,
        store: StoreID,
        device: DeviceID,
        at now: Timestamp
    ) -> StoreEvent {
        StoreEvent.new(.dayStarted(day, hours: hours(of: other ?? day)), store: store, device: device, at: now)
    }
}

/// A business day's hours as its `dayStarted` event carries them, so every device folds the same day (a kiosk
/// whose copy of the hours is stale still follows the log). Old events have none: the day opens at the event's
/// time and lasts until the next day's start.
public struct DayHours: Sendable, Hashable, Codable {
    public var opens: Timestamp
    /// Nil: open until the next day's start.
    public var closes: Timestamp?

    public init(opens: Timestamp, closes: Timestamp?) {
        self.opens = opens
        self.closes = closes
    }

    public func isOpen(at time: Timestamp) -> Bool { time >= opens && closes.map { time < $0 } ?? true }
}

extension StoreTimeZone {
    /// `HH:MM` on this zone's clock at `time`.
    public func clockText(_ time: Timestamp) -> String {
        let local = localSeconds(at: time)
        let minutes = (local - local.floorDivided(by: 86_400) * 86_400) / 60
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(two(minutes / 60)):\(two(minutes % 60))"
    }
}

extension StoreCalendar {
    public static let englishWeekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// A time ahead as people read it at `now`: `07:00` within a day, else `Monday 07:00` (`weekdays`: the
    /// names, Monday first, in the reader's language).
    public func text(of time: Timestamp, from now: Timestamp, weekdays: [String] = englishWeekdays) -> String {
        let clock = zone.clockText(time)
        guard let day = weekday(of: time, from: now) else { return clock }
        return "\(weekdays[day]) \(clock)"
    }

    /// The weekday (0: Monday) a time ahead is named by, when it is a day or more from `now`; nil within a day,
    /// where the clock says enough.
    public func weekday(of time: Timestamp, from now: Timestamp) -> Int? {
        time - now >= .seconds(86_400 - 3600) ? BusinessDay(localDateOf: time, zone: zone).weekday : nil
    }
}
