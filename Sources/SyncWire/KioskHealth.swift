/// What a kiosk tells clup-server about itself (`PUT /v1/devices/self/health`), so the store's console and
/// the fleet's metrics see it: its printer and door as `GET /status` reports them, the paper left, the
/// events not yet on the server, its version. Sent when it changes and every 30 s.
public struct KioskHealth: Codable, Sendable, Equatable {
    /// The software's version.
    public var version: String
    /// One of ``printerStates``; absent on a kiosk without a printer.
    public var printer: String?
    /// One of ``doorStates``; absent on a kiosk without a door.
    public var door: String?
    /// Tickets printed since the paper was last loaded (since kioskd started, until paper first runs out).
    public var ticketsSincePaperLoad: Int?
    /// Tickets left on the roll, from `[printer] roll_tickets`; absent when that is not set.
    public var ticketsLeft: Int?
    /// Events written here that the server has not confirmed.
    public var pendingEvents: Int

    public static let printerStates = [
        "ready", "printing", "paper_near_end", "paper_out", "cover_open", "fault", "disconnected", "starting",
        "stopped", "closed", "clock_wrong",
    ]
    public static let doorStates = ["ready", "disconnected", "starting", "stopped", "clock_wrong"]
    /// Printer states that need a person at the kiosk.
    public static let troubled: Set = ["paper_out", "cover_open", "fault", "disconnected", "clock_wrong"]
    /// Fewer tickets left than this is "paper low".
    public static let lowPaper = 50
    /// The largest count a report may carry.
    public static let countLimit = 10_000_000

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

    /// The first field that holds what it may not, and what it may hold; nil when the report is sound.
    public var problem: (field: String, allowed: String)? {
        guard (1...64).contains(version.count), version.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            return ("version", "1 to 64 printable ASCII characters")
        }
        if let printer, !Self.printerStates.contains(printer) {
            return ("printer", "one of \(Self.printerStates.joined(separator: ", "))")
        }
        if let door, !Self.doorStates.contains(door) {
            return ("door", "one of \(Self.doorStates.joined(separator: ", "))")
        }
        for (field, value) in [
            ("ticketsSincePaperLoad", ticketsSincePaperLoad), ("ticketsLeft", ticketsLeft),
            ("pendingEvents", pendingEvents),
        ] {
            if let value, !(0...Self.countLimit).contains(value) { return (field, "0 to \(Self.countLimit)") }
        }
        return nil
    }

    /// Whether the paper is low: the printer says so, or the roll's estimate is under ``lowPaper``.
    public var paperLow: Bool {
        printer == "paper_near_end" || (ticketsLeft.map { $0 < Self.lowPaper } ?? false)
    }
}
