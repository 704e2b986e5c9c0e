import KioskCore

/// What the status endpoint reports about sync with clup-server.
public struct SyncStatus: Sendable, Codable, Equatable {
    /// `starting`, `online` (the last exchange worked), `offline` (retrying with backoff) or `stopped`.
    public var state = "starting"
    public var server: String
    /// Why the last exchange failed and what to do, while offline.
    public var error: String?
    /// Events written here that the server has not confirmed yet.
    public var outbox = 0
    /// Milliseconds since 1970 of the oldest event in the outbox (the sync lag), nil when it is empty.
    public var oldestUnconfirmed: Int64?
    /// How far this station has read the store's log.
    public var lastSequence: Int64 = 0
    /// Milliseconds since 1970 of the last successful exchange.
    public var lastContact: Int64?
    /// Events the server refused for good, set aside out of the outbox (``StationLog/quarantine(_:reason:at:)``).
    public var quarantined = 0
    /// The server's reason for the last one, and what to do.
    public var lastRefusal: String?
    /// Events of the store's log of a type this kioskd does not know (a newer clup-server's): kept, changing
    /// nothing here — this kiosk wants an update (docs/architecture.md#sync).
    public var newerEvents = 0
    /// Set while clup-server refuses this kioskd as too old (426): its answer, which says what to do. The
    /// outbox waits, nothing is set aside; the display asks for staff.
    public var upgradeRequired: String?
    /// Tickets admitted twice (e.g. at two doors while offline), from the merged log.
    public var conflicts: [AdmissionConflict] = []

    public init(server: String) {
        self.server = server
    }
}
