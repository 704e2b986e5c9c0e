/// An app ticket or a booking as the server issues it: the one rule of its prefix, its number and its
/// `ticketIssued` event, on every storage backend. Storage reserves the number — the business day's next for the
/// prefix, never given twice — and appends what ``made(number:)`` returns.
public struct ServerIssue: Sendable, Hashable {
    /// The device id the server issues and writes under (kiosks may not take it).
    public static let device: DeviceID = "clup-server"

    public var kind: TicketKind
    public var store: StoreID
    public var slot: BookingSlot?
    /// What the ticket was told when it was taken (kept with its event, scored when it is called).
    public var told: WaitRange?
    public var at: Timestamp
    /// The business day it belongs to (the store's calendar at `at`): numbers restart with each.
    public var day: BusinessDay

    public init(kind: TicketKind, store: StoreID, slot: BookingSlot?, told: WaitRange?, at: Timestamp, day: BusinessDay)
    {
        self.kind = kind
        self.store = store
        self.slot = slot
        self.told = told
        self.at = at
        self.day = day
    }

    /// Bookings are `B001…`, app tickets `V001…` (kiosks keep to other letters).
    public var prefix: String { kind == .booking ? "B" : "V" }

    /// The ticket numbered `number` and the event that issues it; a number past what a signed code holds is
    /// refused (the day's numbers of this prefix are used up).
    public func made(number: Int) throws(TicketNumbersUsedUp) -> (ticket: Ticket, event: StoreEvent) {
        guard TicketCode.numbers.contains(number) else { throw TicketNumbersUsedUp(prefix: prefix) }
        let ticket = Ticket(
            id: .v7(at: at),
            store: store,
            kind: kind,
            code: TicketCode(prefix: prefix, number: number),
            issuedAt: at,
            slot: slot,
            issuer: Self.device
        )
        return (ticket, StoreEvent.new(.ticketIssued(ticket, told: told), store: store, device: Self.device, at: at))
    }
}

/// A business day's numbers of one prefix are all given: the store takes paper tickets until the next day.
public struct TicketNumbersUsedUp: Error, Sendable, Hashable, CustomStringConvertible {
    public let prefix: String

    public var description: String {
        "no \(prefix) ticket numbers left today — try a paper ticket at the store"
    }
}
