import KioskCore

/// `POST /v1/stores/{store}/events`: events a kiosk wrote, in its order; appending is idempotent by event id.
public struct EventBatch: Codable, Sendable, Equatable {
    /// At most this many events per request.
    public static let maxEvents = 1000

    public var events: [StoreEvent]

    public init(events: [StoreEvent]) {
        self.events = events
    }
}

/// The answer to an ``EventBatch``: each event's place in the store's log, and the log's last sequence.
public struct AppendedEvents: Codable, Sendable, Equatable {
    public struct Event: Codable, Sendable, Equatable {
        public var id: EventID
        public var sequence: Int64
        /// False when the event was already in the log (a retry): its first sequence is returned.
        public var new: Bool

        public init(id: EventID, sequence: Int64, new: Bool) {
            self.id = id
            self.sequence = sequence
            self.new = new
        }
    }

    public var appended: [Event]
    public var last: Int64

    public init(appended: [Event], last: Int64) {
        self.appended = appended
        self.last = last
    }
}

/// `GET /v1/stores/{store}/events?after=&wait=&limit=`: a page of the store's log in sequence order.
public struct EventPage: Codable, Sendable, Equatable {
    public var events: [StoreEvent]
    /// The last sequence of the store's log when this page was read.
    public var last: Int64
    /// The digest of the store's key ring when this page was read: when it changes, a kiosk fetches the ring
    /// again (absent from servers before revocation).
    public var keyRing: String?
    /// The store's IANA time zone, which a kiosk without `[store] time_zone` counts days by (absent from servers
    /// before time zones).
    public var timeZone: String?
    /// The store's weekly hours, which a kiosk follows instead of its configuration's (absent from servers
    /// before store hours).
    public var hours: StoreHours?
    /// The wait model the server uses for the store, which a kiosk's printed tickets and display use too
    /// (absent from servers before the measured estimate).
    public var model: WaitModel?

    public init(
        events: [StoreEvent],
        last: Int64,
        keyRing: String?,
        timeZone: String? = nil,
        hours: StoreHours? = nil,
        model: WaitModel? = nil
    ) {
        self.events = events
        self.last = last
        self.keyRing = keyRing
        self.timeZone = timeZone
        self.hours = hours
        self.model = model
    }
}
