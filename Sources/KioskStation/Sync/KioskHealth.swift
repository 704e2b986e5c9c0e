/// What a kiosk tells clup-server about itself (`PUT /v1/devices/self/health`), so the store's console and
/// the fleet's metrics see it: its printer and door as `GET /status` reports them, the paper left, the
/// events not yet on the server, its version. Sent when it changes and every 30 s.
public struct KioskHealth: Codable, Sendable, Equatable {
    /// The software's version.
    public var version: String
    /// `ready`, `printing`, `paper_near_end`, `paper_out`, `cover_open`, `fault`, `disconnected`, `starting` or
    /// `stopped`; absent on a kiosk without a printer.
    public var printer: String?
    /// `ready`, `disconnected`, `starting` or `stopped`; absent on a kiosk without a door.
    public var door: String?
    /// Tickets printed since the paper was last loaded (since kioskd started, until paper first runs out).
    public var ticketsSincePaperLoad: Int?
    /// Tickets left on the roll, from `[printer] roll_tickets`; absent when that is not set.
    public var ticketsLeft: Int?
    /// Events written here that the server has not confirmed.
    public var pendingEvents: Int

    public init(
        version: String,
        printer: String? = nil,
        door: String? = nil,
        ticketsSincePaperLoad: Int? = nil,
        ticketsLeft: Int? = nil,
        pendingEvents: Int = 0
    ) {
        self.version = version
        self.printer = printer
        self.door = door
        self.ticketsSincePaperLoad = ticketsSincePaperLoad
        self.ticketsLeft = ticketsLeft
        self.pendingEvents = pendingEvents
    }

    /// The printer's state in one word, the paper first: what needs a person comes before what does not.
    public static func printerState(_ status: PrinterStationStatus) -> String {
        if status.paper == "out" { return "paper_out" }
        if status.conditions.contains("cover_open") { return "cover_open" }
        if status.state == .fault { return "fault" }
        if status.paper == "near_end", status.state == .ready || status.state == .printing { return "paper_near_end" }
        return status.state.rawValue
    }
}
