import KioskCore

/// What the server accepts from a kiosk's event batch. A kiosk credential is a narrow key: it speaks for one
/// device, in the role it was enrolled in, at its own store (a box in a shop can be stolen). Each event is of
/// this store and this device, within the server's clock window (a kiosk that was offline may send events up to
/// `maxAge` old; none from further ahead than `skew`), of a kind the kiosk's role writes, with an id that may
/// stand for it (a derived id only for the day's start it derives), and with its values in the ranges a kiosk
/// makes; then against the store's log (``LogView``): whose tickets it names, which are due to expire, how
/// many people are inside to leave. The capacity is the manager's; a day's start is written as the store's
/// calendar says it, whatever time a kiosk gave it.
struct EventChecks: Sendable {
    /// Two minutes: a kiosk's clock follows NTP; one cut off from it for a month drifts within about a minute
    /// (a real-time clock of ±20 ppm), and more than that is a clock to fix, which the refusal says.
    var skew: Duration = .seconds(defaultSkewSeconds)
    var maxAge: Duration = .seconds(366 * 86_400)

    static let defaultSkewSeconds: Int64 = 120
    /// A refused scan's reason: the door's own words are under 100 scalars; 200 leaves room for translations.
    static let reasonLimit = TextLimit.atMost(200)

    /// The events as the log keeps them (a day's start as the calendar says it), or the first refusal, naming
    /// the event (`events[i]…`) so that the kiosk can set that one aside and push the rest. Events of `known`
    /// (in the log already: a retry) pass as they are: the log keeps its copy.
    func check(
        _ events: [StoreEvent],
        kiosk: KioskGrant,
        calendar: StoreCalendar,
        log: LogView,
        known: Set<EventID> = [],
        now: Timestamp
    ) throws(Refusal) -> [StoreEvent] {
        var log = log
        var kept: [StoreEvent] = []
        kept.reserveCapacity(events.count)
        for (i, event) in events.enumerated() {
            let at = "events[\(i)]"
            var event = event
            guard !known.contains(event.id) else {
                kept.append(event)
                continue
            }
            try shape(event, kiosk: kiosk, calendar: calendar, now: now, at: at)
            if case .dayStarted(let day, _, _) = event.body {
                // Its time and hours are the store's, not the kiosk's: a start dated months back would keep
                // yesterday's whole line, one with other hours would move the store's opening.
                let day = calendar.dayStarted(day, store: kiosk.store, device: kiosk.device)
                event.time = day.time
                event.body = day.body
            }
            try log.admit(event, kiosk: kiosk, at: at)
            kept.append(event)
        }
        return kept
    }

    /// The checks one event passes alone: store, device, clock window, role, id, ranges.
    private func shape(
        _ event: StoreEvent,
        kiosk: KioskGrant,
        calendar: StoreCalendar,
        now: Timestamp,
        at: String
    ) throws(Refusal) {
        let window = (now - maxAge)...(now + skew)
        guard event.store == kiosk.store else { throw Refusal.invalid("not this store", field: "\(at).store") }
        guard event.device == kiosk.device else {
            throw Refusal(
                .forbidden,
                "a device appends only its own events (it is '\(kiosk.device)')",
                field: "\(at).device"
            )
        }
        guard window.contains(event.time) else { throw Self.outside(window, field: "\(at).time") }
        guard event.isDerivedCorrectly else {
            throw Refusal(
                .forbidden,
                "a derived id (UUID version 8) names only the day's start it derives: give this event a UUIDv7",
                field: "\(at).id"
            )
        }
        // The server is upgraded before its kiosks: a field it does not know on a kiosk's event is refused, as
        // an unknown type is, rather than stored unread.
        if let field = event.newerFields.keys.min() {
            throw Refusal(
                .invalid,
                "field '\(String(String.UnicodeScalarView(field.unicodeScalars.prefix(40))))' of \(event.kind) is "
                    + "unknown to this server — upgrade clup-server before its kiosks",
                field: "\(at).body.\(field.prefix(40))"
            )
        }
        guard kiosk.role.writes(event.body) else {
            if case .unknown(let type, _) = event.body {
                throw Refusal(
                    .invalid,
                    "event type '\(String(String.UnicodeScalarView(type.unicodeScalars.prefix(40))))' is unknown to "
                        + "this server — upgrade clup-server before its kiosks",
                    field: "\(at).body.type"
                )
            }
            if case .capacityChanged = event.body {
                throw Refusal(
                    .forbidden,
                    "the capacity is the store manager's: change it in the console (PUT /v1/stores/{id})",
                    field: "\(at).body"
                )
            }
            throw Refusal(
                .forbidden,
                "a kiosk enrolled as '\(kiosk.role.rawValue)' does not write \(event.kind) — enroll it again in the "
                    + "role it plays",
                field: "\(at).body"
            )
        }
        switch event.body {
        case .ticketIssued(let ticket, _):
            let field = "\(at).body.ticket"
            guard ticket.store == kiosk.store else {
                throw Refusal.invalid("ticket of another store", field: "\(field).store")
            }
            guard ticket.kind == .paper, ticket.slot == nil else {
                throw Refusal(.forbidden, "kiosks issue paper tickets only", field: "\(field).kind")
            }
            guard ticket.issuer == kiosk.device else {
                throw Refusal(.forbidden, "a device issues tickets as itself", field: "\(field).issuer")
            }
            guard window.contains(ticket.issuedAt), ticket.issuedAt <= event.time else {
                throw Self.outside(window, field: "\(field).issuedAt")
            }
            guard TicketCode.isValidPrefix(ticket.code.prefix), TicketCode.numbers.contains(ticket.code.number)
            else {
                throw Refusal.invalid(
                    "a code of 1–2 letters and a number \(TicketCode.numbers)",
                    field: "\(field).code"
                )
            }
        case .ticketAdmitted(_, let door):
            guard door == kiosk.device else {
                throw Refusal(.forbidden, "a door records its own decisions", field: "\(at).body.door")
            }
        case .scanRefused(let reason, _, let door):
            guard door == kiosk.device else {
                throw Refusal(.forbidden, "a door records its own decisions", field: "\(at).body.door")
            }
            guard Self.reasonLimit.allows(reason) else {
                throw Refusal.invalid("at most 200 characters (Unicode scalars)", field: "\(at).body.reason")
            }
        case .dayStarted(let day, _, _):
            // The day's start that every device writes alike (its derived id); a kiosk does not restate hours.
            guard event.id == StoreEvent.dayStartedID(day, store: kiosk.store) else {
                throw Refusal(.forbidden, "a kiosk writes a day's start with its derived id", field: "\(at).id")
            }
            // The day may be a few days ahead of the previous opening day's closing (a weekend, holidays),
            // never ahead of the day whose line the store's hours have begun (a start sent early would end
            // today's line; a kiosk's clock may be `skew` ahead).
            let today = now.milliseconds.floorDivided(by: 86_400_000)
            guard day.number >= today - 2, day <= calendar.businessDay(at: now + skew) else {
                throw Refusal.invalid(
                    "the business day whose line has begun, by the store's hours, or an earlier one",
                    field: "\(at).body.day"
                )
            }
        case .countCorrected(_, let by), .letIn(_, _, let by):
            if let problem = StaffCount.problem(event.body) {
                throw Refusal.invalid(problem.message, field: "\(at).body.\(problem.field)")
            }
            // The door's manager page has one password, not names: the door speaks for itself.
            guard by == kiosk.device else {
                throw Refusal(
                    .forbidden,
                    "a door records staff's counts as itself ('\(kiosk.device)')",
                    field: "\(at).body.by"
                )
            }
        case .linePaused, .lineResumed:
            try Self.checkPause(event, kiosk: kiosk, at: at)
        case .ticketTaken, .customerExited, .ticketExpired, .ticketCancelled, .capacityChanged, .journeyTold, .unknown:
            break
        }
    }

    private static func outside(_ window: ClosedRange<Timestamp>, field: String) -> Refusal {
        Refusal.invalid(
            "a time within the server's clock window (\(window.lowerBound.milliseconds)…\(window.upperBound.milliseconds) "
                + "ms since 1970) — check the kiosk's clock (NTP)",
            field: field
        )
    }
}
