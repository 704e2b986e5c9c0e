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
    /// The most a page's events take on the wire (JSON), estimated from above (``StoreEvent/wireBytesBound``):
    /// a quarter of what kioskd reads in one answer (16 MiB), whatever one event holds. A page has at least one
    /// event, so the log always moves on.
    public static let maxBytes = 4 << 20

    /// The longest prefix of `events` (at least one) within ``maxBytes``.
    public static func fitting(_ events: [StoreEvent]) -> ArraySlice<StoreEvent> {
        var total = 0
        for (i, event) in events.enumerated() {
            total += event.wireBytesBound
            if total > maxBytes { return events.prefix(max(i, 1)) }
        }
        return events[...]
    }

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
    /// The server's clock when it answered, in milliseconds since 1970: a kiosk whose clock is far from it
    /// issues no ticket until it is set (absent from servers before the clock check).
    public var serverTime: Int64?
    /// The server's sync protocol (``SyncProtocol``; absent from servers before protocols: 1).
    public var syncProtocol: Int?
    /// What the store decided that its kiosks follow (absent from servers before store settings).
    public var settings: StoreSettings?

    public init(
        events: [StoreEvent],
        last: Int64,
        keyRing: String?,
        timeZone: String? = nil,
        hours: StoreHours? = nil,
        model: WaitModel? = nil,
        serverTime: Int64? = nil,
        syncProtocol: Int? = SyncProtocol.current,
        settings: StoreSettings? = nil
    ) {
        self.settings = settings
        self.serverTime = serverTime
        self.syncProtocol = syncProtocol
        self.events = events
        self.last = last
        self.keyRing = keyRing
        self.timeZone = timeZone
        self.hours = hours
        self.model = model
    }
}

extension StoreEvent {
    /// An upper bound of the event's JSON: its fixed part (ids, times, numbers, names of fields: under 1 KiB)
    /// and each text it carries at 6 bytes a byte (a control character is escaped as `\u0000`). Texts are
    /// bounded when a kiosk pushes them; an event stored before the bounds may still be large.
    public var wireBytesBound: Int {
        var texts = device.utf8.count
        switch body {
        case .ticketIssued(let ticket, _): texts += ticket.issuer.utf8.count + ticket.code.prefix.utf8.count
        case .ticketAdmitted(_, let door): texts += door.utf8.count
        case .scanRefused(let reason, _, let door): texts += reason.utf8.count + door.utf8.count
        case .countCorrected(_, let by): texts += by.utf8.count
        case .letIn(_, let reason, let by), .linePaused(let reason, _, let by):
            texts += reason.utf8.count + by.utf8.count
        case .lineResumed(let by): texts += by.utf8.count
        case .ticketTaken, .customerExited, .ticketExpired, .ticketCancelled, .capacityChanged, .dayStarted,
            .journeyTold:
            break
        case .unknown(let type, let fields):
            return 1024 + 6 * type.utf8.count + 6 * texts + JSONValue.object(fields).wireBytesBound
        }
        let newer = newerFields.isEmpty ? 0 : JSONValue.object(newerFields).wireBytesBound
        return 1024 + 6 * texts + newer
    }
}
