/// What the status endpoint reports about the ticket printer.
public struct PrinterStationStatus: Sendable, Codable, Equatable {
    public enum State: String, Sendable, Codable, CaseIterable {
        case starting
        /// Connecting, or reconnecting after the printer went away.
        case disconnected
        /// A fault stops printing (see `conditions` and `action`).
        case fault
        case printing
        /// A ticket waits in the printer for the next customer.
        case ready
        /// The store hands out no tickets now (closed, before its window): none is presented until
        /// `ticketsFrom`.
        case closed
        /// The wait a new ticket would be told passes the store's closing, and the store stops issuing then
        /// (``LastTickets``): none is presented until the line is short enough, or the next day's tickets.
        case pastClosing = "past_closing"
        /// The box's clock cannot be believed (``ClockWatch``): no ticket until it is set.
        case clockWrong = "clock_wrong"
        case stopped
    }

    public var state: State = .starting
    public var address: String
    public var profile: String
    /// Active printer conditions (`paper_near_end`, `cover_open`, ...).
    public var conditions: [String] = []
    /// What the operator should do, when something needs doing.
    public var action: String?
    /// `ok`, `near_end` or `out`.
    public var paper = "ok"
    /// Code of the ticket waiting in the printer.
    public var waitingTicket: String?
    public var lastTaken: String?
    public var ticketsToday = 0
    /// Tickets printed since the paper was last loaded (counted from kioskd's start until paper first runs out).
    public var ticketsSincePaperLoad = 0
    /// Tickets the presenter pulled back in and voided since kioskd started (an earlier day's, or not taken
    /// within `retract_after_seconds`).
    public var ticketsRetracted = 0
    /// How often the connection to the printer was lost since kioskd started (a cable or a port that drops).
    public var connectionsLost = 0
    /// The state directory is full: no new tickets until there is room to record them.
    public var storageFull = false
    /// While `closed`: when tickets are handed out again (milliseconds since 1970), and when the store opens.
    public var ticketsFrom: Int64?
    public var opensAt: Int64?
    /// Milliseconds since 1970 of the last change.
    public var updatedAt: Int64 = 0

    public init(address: String, profile: String) {
        self.address = address
        self.profile = profile
    }
}
