/// What the fold says about the line: who waits, in what order, who is called and since when, how many are inside.
extension QueueState {
    /// How many tickets of `kind` wait (bookings before their slot included), without walking the line.
    public func waitingCount(of kind: TicketKind) -> Int { waitingByKind[Int(kind.rawValue)] }

    /// Tickets in the queue, first in line first: the whole day's line (a status needs ``waitingCount`` and
    /// ``waiting(first:)``, which do not copy it).
    public var waiting: [Ticket] { order.map { entries[$0.id]!.ticket } }

    /// How many tickets are in the queue (bookings before their slot included).
    public var waitingCount: Int { order.count }

    /// The first `count` tickets in the queue, first in line first.
    public func waiting(first count: Int) -> [Ticket] {
        order.keys(0..<count).map { entries[$0.id]!.ticket }
    }

    /// How many wait ahead of a ticket (all who wait, for a ticket not in the queue yet).
    public func peopleAhead(of id: TicketID) -> Int {
        lineKey(of: id).flatMap { order.index(of: $0) } ?? order.count
    }

    public func stage(of id: TicketID) -> Stage? { entries.stage(of: id) }

    /// When today's admissions happened (since the day's start): who may still be inside, for the wait estimate.
    public var admissionsToday: [Timestamp] { admittedTimes }

    /// Waiting tickets that join the line after `now` (bookings before their slot), in the order they will.
    public func upcoming(after now: Timestamp) -> [Ticket] {
        order.keys(lineLength(at: now)..<order.count).map { entries[$0.id]!.ticket }
    }

    /// When each of ``upcoming(after:)`` joins, through `end`, and its id (its ticket is ``ticket(_:)``): the
    /// wait estimate reads only those whose time comes before the place it is asked about is called.
    func upcomingJoins(after now: Timestamp, through end: Timestamp) -> [(joined: Timestamp, id: TicketID)] {
        let from = lineLength(at: now)
        return order.keys(from..<max(from, lineLength(at: end))).map { ($0.joined, $0.id) }
    }

    /// The ticket of `id`, while the day's queue holds it.
    func ticket(_ id: TicketID) -> Ticket? { entries[id]?.ticket }

    /// Free places inside the store.
    public var freePlaces: Int { max(capacity - inside, 0) }

    /// Whether an exit at `now` can be counted: someone is inside, or before opening someone still was at
    /// the last closing.
    public func countsExit(at now: Timestamp) -> Bool {
        inside > 0 || (insideAtLastDayEnd > 0 && hours.map { now < $0.opens } == true)
    }

    /// Whether the store is open at `now` (calls and admissions happen only then): the current day's hours,
    /// as its `dayStarted` carries them.
    public func isOpen(at now: Timestamp) -> Bool { hours?.isOpen(at: now) ?? true }

    /// When the store opens, while the current day has not opened yet at `now`; nil when it is open, or after
    /// the day's closing (the next day's start, written at closing, tells the next opening).
    public func opensAt(after now: Timestamp) -> Timestamp? {
        guard let hours, now < hours.opens else { return nil }
        return hours.opens
    }

    /// How long until the store opens (zero while it is open): a wait told before opening counts from then.
    public func untilOpen(at now: Timestamp) -> Duration {
        opensAt(after: now).map { $0 - now } ?? .zero
    }

    /// How many tickets are called at `now`: the first of the line, as many as there are free places, and
    /// none while the store is closed or staff paused the calls.
    public func calledCount(at now: Timestamp) -> Int {
        isOpen(at: now) && !isPaused(at: now) ? min(lineLength(at: now), freePlaces) : 0
    }

    /// Whether staff paused the calls at `now` (``LinePause``).
    public func isPaused(at now: Timestamp) -> Bool { pauses.holding(at: now) != nil }

    /// When calls start at or after `now`: the opening, or the planned end of a pause that holds then (nil: they
    /// go on now, or a pause holds until staff resume).
    public func callsStart(after now: Timestamp) -> Timestamp? {
        let opening = opensAt(after: now)
        guard let pause = pauses.holding(at: opening ?? now) else { return opening }
        return pause.end
    }

    /// When each ticket was first called (came within the free places), stamped as events are applied: a
    /// dictionary made for the asking (``callTime(of:at:)`` reads one).
    public var calledAt: [TicketID: Timestamp] { entries.calledTimes }

    /// How many waiting tickets have joined by `now` (the line is sorted by joining time: they come first).
    public func lineLength(at now: Timestamp) -> Int {
        order.partitionPoint { $0.joined > now }
    }

    /// The line at `now`: waiting tickets that have joined by then (a booking joins at its slot's start),
    /// first in line first.
    public func line(at now: Timestamp) -> [Ticket] {
        order.keys(0..<lineLength(at: now)).map { entries[$0.id]!.ticket }
    }

    /// The line at `now` as the wait estimate reads it: each ticket's id, kind and when it joined (its key in
    /// line), without making the tickets nor looking them up (a long line's roll reads a thousand).
    func linePlaces(at now: Timestamp) -> [LineKey] {
        order.keys(0..<lineLength(at: now))
    }

    /// A waiting ticket's place in the line at `now` (0 = first); nil if it is not in that line.
    public func position(of id: TicketID, at now: Timestamp) -> Int? {
        guard let key = lineKey(of: id), key.joined <= now else { return nil }
        return order.index(of: key)
    }

    /// The tickets called at `now`: the first of the line, as many as there are free places (at most
    /// `limit`).
    public func called(at now: Timestamp, first limit: Int = .max) -> [Ticket] {
        order.keys(0..<min(calledCount(at: now), limit)).map { entries[$0.id]!.ticket }
    }

    /// The ids of ``called(at:first:)``, without making their tickets.
    public func calledIDs(at now: Timestamp) -> [TicketID] {
        order.keys(0..<calledCount(at: now)).map(\.id)
    }

    /// Whether `id`, in line, had waited ``WaitModel/plannedWait`` or more when called at `calledAt` (ms since
    /// 1970): its holder had time to time the trip to the door (the wait model learns and rolls such tickets'
    /// delays apart).
    func hadTimeToPlanTrip(_ id: TicketID, calledAt: Int64) -> Bool {
        joinTime(of: id).map { Self.hadTimeToPlanTrip(joined: $0, calledAt: calledAt) } ?? false
    }

    /// The same of a ticket that joined at `joined` (the wait estimate reads it with the line).
    static func hadTimeToPlanTrip(joined: Timestamp, calledAt: Int64) -> Bool {
        calledAt - joined.milliseconds >= plannedWaitMilliseconds
    }

    private static let plannedWaitMilliseconds = Int64(WaitModel.plannedWait.components.seconds) * 1000

    /// When `id` joined the line, if it is waiting.
    func joinTime(of id: TicketID) -> Timestamp? {
        guard case .waiting(let joined)? = entries.stage(of: id) else { return nil }
        return joined
    }

    /// `id`'s key in the line (when it joined, its kind), if it is waiting.
    func lineKey(of id: TicketID) -> LineKey? {
        guard let (stage, kind) = entries.stageAndKind(of: id), case .waiting(let joined) = stage else { return nil }
        return LineKey(joined: joined, id: id, kind: kind)
    }

    /// Whether `id` is called at `now`.
    public func isCalled(_ id: TicketID, at now: Timestamp) -> Bool {
        guard let position = position(of: id, at: now) else { return false }
        return position < calledCount(at: now)
    }

    /// When `id` was called, as its call window counts: stamped by the log, or (called only by time passing)
    /// since it joined, or since the store opened — or since calls went on after a pause, if that was later.
    public func callTime(of id: TicketID, at now: Timestamp) -> Timestamp? {
        if let stamped = entries.calledAt(id) { return afterPauses(stamped, at: now) }
        guard isCalled(id, at: now) else { return nil }
        return callTime(ofCalled: id, at: now)
    }

    /// ``callTime(of:at:)`` of a ticket known to be called (the wait estimate's, for the line's called prefix):
    /// without finding its place in the line again.
    func callTime(ofCalled id: TicketID, at now: Timestamp) -> Timestamp? {
        if let stamped = entries.calledAt(id) { return afterPauses(stamped, at: now) }
        guard case .waiting(let joined)? = entries.stage(of: id) else { return nil }
        return afterPauses(max(joined, hours?.opens ?? joined), at: now)
    }

    /// A call at `time`, as its window counts at `now`: from the end of a later pause, if one ended by then.
    private func afterPauses(_ time: Timestamp, at now: Timestamp) -> Timestamp {
        pauses.restarted(at: now).map { max($0, time) } ?? time
    }
}
