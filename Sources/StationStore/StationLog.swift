import KioskCore

/// The one way a station records what happened. It makes each event (a UUIDv7 id at the event's time, or a
/// day start's derived id), writes what belongs together in one transaction of the local log, and applies it to
/// the replica, which tells the live pages. The printer, the door and the day keeper record through it; nothing
/// else in the station makes events. What sync brings back (the server's pages, its confirmations, its refusals)
/// is stored through it too (`StationLog+Sync.swift`): outside this module the log and the replica are read-only.
public struct StationLog: Sendable {
    public let store: LocalStore
    public let queue: QueueReplica
    let storeID: StoreID
    let device: DeviceID
    /// Never before the last time the clock was believed (nil: the time as given).
    let stamp: (@Sendable (Timestamp) -> Timestamp)?

    public init(
        store: LocalStore,
        queue: QueueReplica,
        storeID: StoreID,
        device: DeviceID,
        stamp: (@Sendable (Timestamp) -> Timestamp)? = nil
    ) {
        self.store = store
        self.queue = queue
        self.storeID = storeID
        self.device = device
        self.stamp = stamp
    }

    /// A new event of this station at `time` (never before the last time the clock was believed: a clock set
    /// back does not put a tear-off ahead of those before it), not recorded yet (see ``record(_:reserve:)``).
    public func event(_ body: StoreEvent.Body, at time: Timestamp) -> StoreEvent {
        StoreEvent.new(body, store: storeID, device: device, at: stamp?(time) ?? time)
    }

    /// Writes `events` in one transaction, then applies them. `reserve`: the storage reserve is given back
    /// first if the disk is full — for what must be on disk before a customer is answered (a take, an
    /// admission, an exit); without it a full disk throws and the caller tries again later.
    public func record(_ events: [StoreEvent], reserve: Bool = true) throws {
        guard !events.isEmpty else { return }
        if reserve {
            try store.withReserve { try store.append(events) }
        } else {
            try store.append(events)
        }
        queue.apply(events)
    }

    /// Records `bodies`, all at `time`, in one transaction; the events recorded.
    @discardableResult
    public func record(_ bodies: [StoreEvent.Body], at time: Timestamp, reserve: Bool = true) throws -> [StoreEvent] {
        let events = bodies.map { event($0, at: time) }
        try record(events, reserve: reserve)
        return events
    }

    /// Issues the next paper ticket of `day` for `prefix` with its `ticketIssued` event (and the wait it is
    /// `told`, to be printed) and signed QR, in one durable transaction.
    public func issueTicket(
        prefix: String,
        day: BusinessDay,
        at time: Timestamp,
        told: WaitRange? = nil,
        qr: (Ticket) -> String
    ) throws -> IssuedTicket {
        let (ticket, event) = try store.issueTicket(
            store: storeID,
            device: device,
            prefix: prefix,
            day: day,
            at: time,
            qr: qr,
            event: { self.event(.ticketIssued($0, told: told), at: time) }
        )
        queue.apply(event)
        return ticket
    }

    /// The ticket was torn off: it joins the line. False when it was recorded taken already.
    @discardableResult
    public func recordTaken(_ ticket: Ticket, at time: Timestamp) throws -> Bool {
        try close(event(.ticketTaken(ticket.id), at: time)) { try store.recordTaken(ticket, event: $0) }
    }

    /// The presenter pulled the ticket back in: its code is void. False when it was taken or voided already.
    @discardableResult
    public func voidTicket(_ ticket: Ticket, at time: Timestamp) throws -> Bool {
        try close(event(.ticketCancelled(ticket.id), at: time)) { try store.voidTicket(ticket, event: $0) }
    }

    /// The ticket left the printer, perhaps in a customer's hand: no longer the printer's, still valid (no event:
    /// it stays in the queue as printed, and a scan at the door records its take). False when it was taken or
    /// closed already.
    @discardableResult
    public func setAside(_ ticket: Ticket, at time: Timestamp) throws -> Bool {
        try store.withReserve { try store.setAside(ticket, at: time) }
    }

    /// Writes `event` with the ticket's mark (with the reserve), and applies it when the mark changed the row.
    private func close(_ event: StoreEvent, _ write: (StoreEvent) throws -> Bool) throws -> Bool {
        guard try store.withReserve({ try write(event) }) else { return false }
        queue.apply(event)
        return true
    }
}
