import Hummingbird

/// What a kiosk reports about itself (`PUT /v1/devices/self/health`, kioskd's `KioskHealth`), checked:
/// the states are the words kioskd uses, the counts in range, the version short. The console and the fleet's
/// metrics show it.
struct DeviceHealth: Codable, Sendable, Equatable {
    var version: String
    var printer: String?
    var door: String?
    var ticketsSincePaperLoad: Int?
    var ticketsLeft: Int?
    var pendingEvents: Int

    static let printerStates = [
        "ready", "printing", "paper_near_end", "paper_out", "cover_open", "fault", "disconnected", "starting",
        "stopped",
    ]
    static let doorStates = ["ready", "disconnected", "starting", "stopped"]
    /// Printer states that need a person at the kiosk.
    static let troubled: Set = ["paper_out", "cover_open", "fault", "disconnected"]
    /// Fewer tickets left than this is "paper low".
    static let lowPaper = 50

    func validate() throws(APIError) {
        guard (1...64).contains(version.count), version.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw APIError.badRequest("1 to 64 printable ASCII characters", field: "version")
        }
        if let printer, !Self.printerStates.contains(printer) {
            throw APIError.badRequest("one of \(Self.printerStates.joined(separator: ", "))", field: "printer")
        }
        if let door, !Self.doorStates.contains(door) {
            throw APIError.badRequest("one of \(Self.doorStates.joined(separator: ", "))", field: "door")
        }
        for (field, value) in [
            ("ticketsSincePaperLoad", ticketsSincePaperLoad), ("ticketsLeft", ticketsLeft),
            ("pendingEvents", pendingEvents),
        ] {
            if let value, !(0...10_000_000).contains(value) {
                throw APIError.badRequest("0 to 10000000", field: field)
            }
        }
    }

    /// Whether the paper is low: the printer says so, or the roll's estimate is under ``lowPaper``.
    var paperLow: Bool {
        printer == "paper_near_end" || (ticketsLeft.map { $0 < Self.lowPaper } ?? false)
    }
}
