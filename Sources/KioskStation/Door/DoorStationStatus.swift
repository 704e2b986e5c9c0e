/// What the status endpoint and the manager page report about the door.
public struct DoorStationStatus: Sendable, Codable, Equatable {
    public struct Decision: Sendable, Codable, Equatable {
        /// `admit` or the refusal's reason key (`not_your_turn`, `store_full`, ...).
        public var reason: String
        /// What to tell the customer.
        public var message: String
        public var code: String?
        /// Milliseconds since 1970.
        public var at: Int64
    }

    /// `starting`, `ready`, `disconnected` (scanner unplugged or unreachable) or `stopped`.
    public var state = "starting"
    public var scanner: String
    public var last: Decision?
    public var admitted = 0
    public var refused = 0
    public var exits = 0
    /// How often the scanner went away since kioskd started (unplugged, or a line that drops).
    public var connectionsLost = 0
    /// The state directory is full: decisions are shown but not recorded, and nobody is admitted.
    public var storageFull = false
    /// What the operator should do, when something needs doing.
    public var action: String?
    /// `ready` or `disconnected` when an exit key input is configured.
    public var exitInput: DeviceState?
    /// The light and gate on GPIO, when wired: `ready`, or `unavailable: <what to do>`.
    public var lights: DeviceState?
    /// What the light shows now (wired or not): `off`, `green`, `red`, `green+gate`.
    public var light = "off"
    /// The exit beams, when wired: `ready`, `blocked: <which>`, or `unavailable: <what to do>`.
    public var beams: DeviceState?
    /// People the two exit beams saw come in through the exit (not counted as exits).
    public var walkedInThroughExit = 0

    public init(scanner: String) {
        self.scanner = scanner
    }
}
