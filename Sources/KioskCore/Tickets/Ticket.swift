/// What a ticket is for: printed at the entrance, taken in the app, or a booked visit.
public enum TicketKind: UInt8, Sendable, Codable, CaseIterable {
    case paper = 0
    case app = 1
    case booking = 2
}

/// A ticket: who may enter when. Carries no personal data.
public struct Ticket: Sendable, Hashable, Codable, Identifiable {
    public var id: TicketID
    public var store: StoreID
    public var kind: TicketKind
    public var code: TicketCode
    public var issuedAt: Timestamp
    /// For bookings: the slot; the ticket is valid from its start to 5 minutes after (R19).
    public var slot: BookingSlot?
    /// The device that issued it (and signed its code).
    public var issuer: DeviceID

    public init(
        id: TicketID,
        store: StoreID,
        kind: TicketKind,
        code: TicketCode,
        issuedAt: Timestamp,
        slot: BookingSlot? = nil,
        issuer: DeviceID
    ) {
        self.id = id
        self.store = store
        self.kind = kind
        self.code = code
        self.issuedAt = issuedAt
        self.slot = slot
        self.issuer = issuer
    }
}

/// A booked visit's time slot.
public struct BookingSlot: Sendable, Hashable, Codable {
    public var start: Timestamp
    public var end: Timestamp
    /// How long the customer said they would stay (R18, R20), if they did.
    public var expectedVisitMinutes: Int?

    public init(start: Timestamp, end: Timestamp, expectedVisitMinutes: Int? = nil) {
        self.start = start
        self.end = end
        self.expectedVisitMinutes = expectedVisitMinutes
    }
}
