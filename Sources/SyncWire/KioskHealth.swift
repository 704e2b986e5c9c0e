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
    /// Events the server refused for good, set aside out of the outbox (absent from an older kioskd).
    public var quarantined: Int?
    /// Events of the store's log of a type this kioskd does not know, a newer clup-server's (absent from an
    /// older kioskd).
    public var newerEvents: Int?
    /// One of ``lightStates``: the entrance light and gate on GPIO; absent where none is wired.
    public var light: String?
    /// One of ``voiceStates``; absent on a kiosk that does not speak.
    public var voice: String?
    /// The kiosk's wall clock when it sent the report, milliseconds since 1970: the server's view of how far
    /// it is off (absent from an older kioskd).
    public var clock: Int64?

    public static let printerStates = [
        "ready", "printing", "paper_near_end", "paper_out", "cover_open", "fault", "disconnected", "starting",
        "stopped", "closed", "clock_wrong",
    ]
    public static let doorStates = ["ready", "disconnected", "starting", "stopped", "clock_wrong"]
    public static let lightStates = ["ready", "unavailable"]
    public static let voiceStates = ["starting", "ready", "speaking", "unavailable", "stopped"]
    /// The latest clock a report may carry: 1 January 2100.
    public static let clockLimit: Int64 = 4_102_444_800_000
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
        pendingEvents: Int = 0,
        quarantined: Int? = nil,
        newerEvents: Int? = nil,
        light: String? = nil,
        voice: String? = nil,
        clock: Int64? = nil
    ) {
        self.version = version
        self.printer = printer
        self.door = door
        self.ticketsSincePaperLoad = ticketsSincePaperLoad
        self.ticketsLeft = ticketsLeft
        self.pendingEvents = pendingEvents
        self.quarantined = quarantined
        self.newerEvents = newerEvents
        self.light = light
        self.voice = voice
        self.clock = clock
    }

    /// The first field that holds what it may not, and what it may hold; nil when the report is sound.
    public var problem: (field: String, allowed: String)? {
        guard Self.isVersion(version) else { return ("version", Self.versionRule) }
        if let printer, !Self.printerStates.contains(printer) {
            return ("printer", "one of \(Self.printerStates.joined(separator: ", "))")
        }
        for (field, value, states) in [
            ("door", door, Self.doorStates), ("light", light, Self.lightStates), ("voice", voice, Self.voiceStates),
        ] {
            if let value, !states.contains(value) { return (field, "one of \(states.joined(separator: ", "))") }
        }
        if let clock, !(0...Self.clockLimit).contains(clock) {
            return ("clock", "milliseconds since 1970, before 2100")
        }
        for (field, value) in [
            ("ticketsSincePaperLoad", ticketsSincePaperLoad), ("ticketsLeft", ticketsLeft),
            ("pendingEvents", pendingEvents), ("quarantined", quarantined), ("newerEvents", newerEvents),
        ] {
            if let value, !(0...Self.countLimit).contains(value) { return (field, "0 to \(Self.countLimit)") }
        }
        return nil
    }

    /// Whether `text` may be a version: 1 to 64 printable ASCII characters.
    public static func isVersion(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }
    public static let versionRule = "1 to 64 printable ASCII characters"

    /// Whether the paper is low: the printer says so, or the roll's estimate is under ``lowPaper``.
    public var paperLow: Bool {
        printer == "paper_near_end" || (ticketsLeft.map { $0 < Self.lowPaper } ?? false)
    }
}
