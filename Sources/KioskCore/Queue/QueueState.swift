import HashTreeCollections

/// The queue of one store: a pure fold of its event log.
///
/// Every station and the server run this same reducer over the same log, so they agree without extra messages.
/// Order in the queue is by the time a ticket joined it (torn off for paper, issued for app tickets; an event
/// that reached the server late counts from its arrival), ties broken by ticket id; the log's order only
/// matters for events about the same ticket.
public struct QueueState: Sendable, Equatable {
    public enum Stage: Sendable, Equatable, Codable {
        /// Printed and waiting in the printer: not in the queue yet.
        case inPrinter
        /// In the queue since `joined`.
        case waiting(joined: Timestamp)
        case admitted(at: Timestamp)
        case expired
        case cancelled
    }

    /// Every ticket of the log, by id, with its stage and when it was called.
    public internal(set) var entries = Entries()
    /// The waiting tickets in line order, kept sorted as stages change (so a decision never sorts the day).
    var order = LineOrder()
    /// How many of `order` are paper, app and booking tickets.
    var waitingByKind = [0, 0, 0]
    public internal(set) var capacity: Int
    /// People inside: admissions and people let in, minus exits, never below zero — counted from the day's
    /// latest ``correction`` where staff corrected it (``StaffCount``).
    public internal(set) var inside = 0
    /// The current day's latest correction of the count, if staff made one.
    public internal(set) var correction: CountCorrection?
    /// The current day's pauses of the calls (``LinePause``).
    public internal(set) var pauses = LinePauses()
    /// The journeys holders told for their tickets (``HolderJourney``).
    public internal(set) var journeys = HolderJourneys()
    /// Events that referred to a ticket the log does not know (reported, not fatal).
    public internal(set) var orphanEvents = 0
    /// Events of a type this version does not know (a newer server's or device's): kept in the log, changing
    /// nothing here, counted so that the kiosk can say it wants an update.
    public internal(set) var newerEvents = 0
    /// Tickets admitted more than once (e.g. at two doors while they were offline): the first admission
    /// counts, the others are reported here, not hidden.
    public internal(set) var conflicts: [AdmissionConflict] = []
    /// Which door admitted each ticket, to name both sides of a conflict.
    var admittedBy: TreeDictionary<TicketID, DeviceID> = [:]
    /// How many tickets at the front of `order` are known to have `calledAt` set (a cursor, not state).
    private var stamped = Cursor()
    /// The business day the log has started last (``StoreEvent/Body/dayStarted``), and when its line started.
    public internal(set) var day: BusinessDay?
    public internal(set) var dayStartedAt: Timestamp?
    /// When that day opens and closes: nobody is called outside (nil before the first day: always open).
    public internal(set) var hours: DayHours?
    /// Whether that day's start kept the line of the day before (the store was open across the turn).
    public internal(set) var lineKept = false
    /// Whether the tickets called at the day's opening were stamped with the opening instant. Left out of
    /// equality like ``Cursor``: a repeated event that changes nothing else (a day's start written by two
    /// devices) leaves the state equal.
    var openingStamped = Flag()
    /// How many were still counted inside when the last business day ended: a figure for the manager (people
    /// who left unseen, or a missed exit), not carried into the new day.
    public internal(set) var insideAtLastDayEnd = 0
    /// When this day's admissions and exits happened: an event of the new day may reach the log before the
    /// `dayStarted` that another device wrote, and the reset must keep what happened after the day's start.
    var admittedTimes: [Timestamp] = []
    var exitTimes: [Timestamp] = []

    /// A position kept only to save work; two states that agree on everything else are equal.
    private struct Cursor: Sendable, Equatable {
        var value = 0
        static func == (_: Self, _: Self) -> Bool { true }
    }

    /// A mark kept only to save work, like ``Cursor``.
    struct Flag: Sendable, Equatable {
        var value = false
        static func == (_: Self, _: Self) -> Bool { true }
    }

    public init(capacity: Int) {
        self.capacity = capacity
    }

    public init(capacity: Int, events: some Sequence<StoreEvent>) {
        self.init(capacity: capacity)
        for event in events { apply(event) }
    }

    public mutating func apply(_ event: StoreEvent) {
        // A refused scan changes nothing: not even the clock the calls are stamped with.
        if case .scanRefused = event.body { return }
        // The first event after opening: those the opening called were called at the opening instant.
        if let hours, !openingStamped.value, event.lineTime >= hours.opens {
            openingStamped.value = true
            stampCalls(at: hours.opens)
        }
        applyBody(event)
        // Fields of a newer version on a known event: folded as this version knows it, and counted.
        if !event.newerFields.isEmpty { newerEvents += 1 }
        stampCalls(at: event.lineTime)
    }

    /// Whether applying the event can change the state (a refused scan cannot).
    public static func changesState(_ event: StoreEvent) -> Bool {
        if case .scanRefused = event.body { return false }
        return true
    }

    private mutating func applyBody(_ event: StoreEvent) {
        switch event.body {
        case .ticketIssued(let ticket, _):
            guard !entries.contains(ticket.id) else { return }
            let stage: Stage =
                ticket.kind == .paper ? .inPrinter : .waiting(joined: ticket.dayTime)
            entries.insert(ticket, stage: stage)
            if case .waiting(let joined) = stage {
                joinLine(LineKey(joined: joined, id: ticket.id, kind: ticket.kind))
            }
        case .ticketTaken(let id):
            // Taken before the current business day started (its event came late): that day's line is over,
            // unless the day kept it.
            let ofEarlierDay = !lineKept && dayStartedAt.map { event.time < $0 } ?? false
            update(id) { stage in
                if stage == .inPrinter { stage = ofEarlierDay ? .expired : .waiting(joined: event.lineTime) }
            }
        case .ticketAdmitted(let id, let door):
            if let entry = entries[id], case .admitted(let at) = entry.stage {
                // One conflict a ticket: the manager needs to know it happened, not how often a door said so.
                guard !conflicts.contains(where: { $0.ticket == id }) else { return }
                conflicts.append(
                    AdmissionConflict(
                        ticket: id,
                        code: entry.ticket.code,
                        firstDoor: admittedBy[id] ?? "?",
                        firstAt: at,
                        secondDoor: door,
                        secondAt: event.time
                    )
                )
                return
            }
            var admitted = false
            update(id) { stage in
                stage = .admitted(at: event.time)
                admitted = true
            }
            if admitted {
                admittedBy[id] = door
                admittedTimes.append(event.time)
                if countsAfterCorrection(event.time) { inside += 1 }
            }
        case .customerExited:
            if inside == 0, insideAtLastDayEnd > 0, let hours, event.time < hours.opens {
                insideAtLastDayEnd -= 1  // one of those still inside at closing left
            } else {
                exitTimes.append(event.time)
                if countsAfterCorrection(event.time) { inside = max(inside - 1, 0) }
            }
        case .letIn(let people, _, _):
            let people = StaffCount.counted(people: people)
            admittedTimes += repeatElement(event.time, count: people)
            if countsAfterCorrection(event.time) { inside += people }
        case .countCorrected(let count, let by):
            correct(to: count, by: by, at: event.time)
        case .linePaused(let reason, let until, let by):
            guard dayStartedAt.map({ event.time >= $0 }) ?? true else { return }
            pauses.pause(since: event.time, until: until, reason: reason, by: by)
        case .lineResumed(let by):
            guard dayStartedAt.map({ event.time >= $0 }) ?? true else { return }
            pauses.resume(at: event.time, by: by)
        case .dayStarted(let newDay, let hours, let keepsLine):
            startDay(
                newDay,
                at: event.time,
                hours: hours ?? DayHours(opens: event.time, closes: nil),
                restated: hours != nil,
                keepsLine: keepsLine
            )
        case .ticketExpired(let id):
            update(id) { stage in
                if case .waiting = stage { stage = .expired }
            }
        case .ticketCancelled(let id):
            // A kiosk voids only a ticket still in its printer (a presenter pulled it back in): one already
            // taken may be in a customer's hand (a take during a retract counts as a take). Holders and
            // managers cancel through the server, which may cancel a ticket in line.
            let byKiosk = event.device != ServerIssue.device
            update(id) { stage in
                switch stage {
                case .inPrinter: stage = .cancelled
                case .waiting where !byKiosk: stage = .cancelled
                default: break
                }
            }
        case .capacityChanged(let newCapacity):
            capacity = max(newCapacity, 0)
        case .journeyTold(let id, let minutes):
            guard case .waiting = entries[id]?.stage else { return }
            journeys.tell(id, minutes: minutes, at: event.lineTime)
        case .scanRefused:
            break
        case .unknown:
            newerEvents += 1
        }
    }

    /// Ends the day before `start`: its line expires (bookings and tickets that joined since stay), and the
    /// count inside starts again from those admitted since, less those who left since — unless the store is
    /// open across the turn (`keepsLine`): then the line and the count go on. An older or repeated day changes
    /// nothing.
    private mutating func startDay(
        _ newDay: BusinessDay,
        at start: Timestamp,
        hours: DayHours,
        restated: Bool,
        keepsLine: Bool
    ) {
        if let day, newDay < day { return }
        if let day, newDay == day {
            // The day's hours said again (changed by the store's manager): they replace the day's.
            if restated, hours != self.hours {
                self.hours = hours
                openingStamped.value = false
            }
            return
        }
        let previousStart = dayStartedAt
        day = newDay
        dayStartedAt = start
        self.hours = hours
        lineKept = keepsLine
        openingStamped.value = false
        if !keepsLine {
            let stale = order.keys(0..<order.partitionPoint { $0.joined >= start })
            for key in stale {
                update(key.id) { $0 = .expired }
            }
        }
        forgetEarlierDays(before: start, printedBefore: previousStart)
        journeys.keep { if case .waiting = entries[$0]?.stage { true } else { false } }
        admittedTimes.removeAll { $0 < start }
        exitTimes.removeAll { $0 < start }
        // Conflicts are the day's news: the manager saw them in its report (the log keeps every admission).
        conflicts.removeAll { $0.secondAt < start }
        // A day that starts afresh calls from its opening; one open across the turn keeps a pause that holds.
        if !keepsLine { pauses.keep(since: start) }
        guard !keepsLine else {
            insideAtLastDayEnd = 0  // nobody's day ended: those inside are counted until they leave
            return
        }
        let today: Int
        if let correction, correction.at >= start {
            today = counted(from: correction)
        } else {
            correction = nil
            today = max(admittedTimes.count - exitTimes.count, 0)
        }
        insideAtLastDayEnd = max(inside - today, 0)
        inside = today
    }

    /// Whether an admission or exit at `time` changes the count: not one stamped before the day's correction
    /// (``StaffCount``).
    private func countsAfterCorrection(_ time: Timestamp) -> Bool {
        correction.map { time >= $0.at } ?? true
    }

    /// Takes staff's count: from its time on, the count is theirs plus the admissions, less the exits, stamped
    /// since. One of an earlier day, or before the day's latest, is kept in the log for the record only.
    private mutating func correct(to count: Int, by: String, at time: Timestamp) {
        if let start = dayStartedAt, time < start { return }
        if let correction, time < correction.at { return }
        let corrected = CountCorrection(
            at: time,
            inside: min(max(count, 0), StaffCount.inside.upperBound),
            by: by
        )
        correction = corrected
        inside = counted(from: corrected)
    }

    /// The count since `correction`: its number, plus those admitted or let in since, less those who left since.
    private func counted(from correction: CountCorrection) -> Int {
        let admitted = admittedTimes.count { $0 >= correction.at }
        let exited = exitTimes.count { $0 >= correction.at }
        return max(correction.inside + admitted - exited, 0)
    }

    /// Forgets the tickets whose story ended before `start` (admitted, expired or cancelled by then): a
    /// station or server that runs for months holds one day's queue, not its history. A ticket still in a
    /// printer stays a day longer (a presenter that cannot retract keeps it overnight; one set aside may be in a
    /// hand), then goes too (`printedBefore`: the previous day's start). A scan of a forgotten ticket is still
    /// told it is of an earlier day (``Admission``, from the code's issue time).
    private mutating func forgetEarlierDays(before start: Timestamp, printedBefore: Timestamp?) {
        let forgotten = entries.ids { stage, dayTime in
            switch stage {
            case .admitted(let at): at < start
            case .expired, .cancelled: dayTime < start
            case .inPrinter: printedBefore.map { dayTime < $0 } ?? false
            case .waiting: false
            }
        }
        for id in forgotten {
            entries.remove(id)
            admittedBy[id] = nil
        }
    }

    /// Whether `id` was issued before the current business day started and that day's line ended with it (a
    /// ticket of an earlier day). A day that kept the line keeps its tickets' stories: one expired since was
    /// called and not used.
    public func isFromEarlierDay(_ id: TicketID) -> Bool {
        guard !lineKept, let start = dayStartedAt, let dayTime = entries.dayTime(of: id) else { return false }
        return dayTime < start
    }

    private mutating func update(_ id: TicketID, _ change: (inout Stage) -> Void) {
        guard let (before, kind) = entries.stageAndKind(of: id) else {
            orphanEvents += 1
            return
        }
        var stage = before
        change(&stage)
        guard stage != before else { return }
        entries.setStage(stage, of: id)
        if case .waiting(let joined) = before { leaveLine(LineKey(joined: joined, id: id, kind: kind)) }
        if case .waiting(let joined) = stage { joinLine(LineKey(joined: joined, id: id, kind: kind)) }
    }

    mutating func joinLine(_ key: LineKey) {
        waitingByKind[Int(key.kind.rawValue)] += 1
        let i = order.insert(key)
        if i < stamped.value { stamped.value = i }
    }

    private mutating func leaveLine(_ key: LineKey) {
        waitingByKind[Int(key.kind.rawValue)] -= 1
        if let i = order.remove(key), i < stamped.value { stamped.value -= 1 }
    }

    /// Stamps the tickets newly within the called prefix of the line. Only the part past `stamped` is
    /// looked at: a big store's line is not walked on every event.
    mutating func stampCalls(at time: Timestamp) {
        let limit = calledCount(at: time)
        guard stamped.value < limit else { return }
        for key in order.keys(stamped.value..<limit) { entries.stampCall(key.id, at: time) }
        stamped.value = limit
    }
}

/// One ticket admitted twice: both doors let its holder in (they could not know of each other, e.g.
/// while offline). Occupancy counts it once; the manager sees it.
public struct AdmissionConflict: Sendable, Hashable, Codable {
    public var ticket: TicketID
    public var code: TicketCode
    public var firstDoor: DeviceID
    public var firstAt: Timestamp
    public var secondDoor: DeviceID
    public var secondAt: Timestamp
}

extension Ticket {
    /// The time that places a ticket in a business day: a booking's slot start, else when it was issued (an
    /// app ticket joins the line then; a paper ticket joins later, when it is torn off, but was of that day).
    var dayTime: Timestamp { slot?.start ?? issuedAt }
}
