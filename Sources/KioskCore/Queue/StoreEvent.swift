/// One entry of a store's append-only event log. Queue state is a fold of these (``QueueState``).
///
/// The id is made by the device that created the event (UUIDv7), so the server can drop a second append of
/// the same event; `sequence` is the position the server gave it (nil until the server has confirmed it).
public struct StoreEvent: Sendable, Hashable, Codable, Identifiable {
    public var id: EventID
    public var store: StoreID
    public var device: DeviceID
    public var time: Timestamp
    public var body: Body
    public var sequence: Int64?
    /// When the server received an event that came late (an offline kiosk's, or one with a clock behind): set
    /// by the server only, and only then. The line counts such an event from here (``lineTime``), so tickets
    /// torn off while a kiosk was cut off, or backdated, never jump ahead of tickets already waiting.
    public var receivedAt: Timestamp?
    /// Fields of the body this version does not know, kept as they came (``StoredBody``).
    public var newerFields: [String: JSONValue] = [:]

    public init(
        id: EventID,
        store: StoreID,
        device: DeviceID,
        time: Timestamp,
        body: Body,
        sequence: Int64? = nil,
        receivedAt: Timestamp? = nil,
        newerFields: [String: JSONValue] = [:]
    ) {
        self.id = id
        self.store = store
        self.device = device
        self.time = time
        self.body = body
        self.sequence = sequence
        self.receivedAt = receivedAt
        self.newerFields = newerFields
    }

    /// When the event counts for the order of the line: when the server received it if it came late, else
    /// when it happened.
    public var lineTime: Timestamp { receivedAt ?? time }

    public enum Body: Sendable, Hashable, Codable {
        /// A ticket issued without a told wait.
        public static func ticketIssued(_ ticket: Ticket) -> Body { .ticketIssued(ticket, told: nil) }

        /// A ticket exists: printed and waiting in the printer, or made by the server for the app or a booking;
        /// `told`: the wait it was told (printed, or answered), kept to measure the estimate against what happened
        /// (absent from devices before the wait estimate was measured).
        case ticketIssued(Ticket, told: WaitRange?)
        /// A paper ticket was torn off: it joins the queue at the event's ``StoreEvent/lineTime``.
        case ticketTaken(TicketID)
        /// The door let the ticket's holder in.
        case ticketAdmitted(TicketID, door: DeviceID)
        /// Someone left the store.
        case customerExited
        /// Called but not shown up within the call window.
        case ticketExpired(TicketID)
        case ticketCancelled(TicketID)
        case capacityChanged(Int)
        /// A business day's line began (the event's time: the previous opening day's closing, see
        /// ``StoreCalendar``): the tickets still waiting or called from before expire, and occupancy starts
        /// again from zero (a count still inside is kept as a figure, ``QueueState/insideAtLastDayEnd``). Paper
        /// tickets still in a printer and bookings stay. `hours`: when the day opens and closes — nobody is
        /// called before or after (nil, from devices before store hours: open from the event's time until the
        /// next day's start). `keepsLine`: the store is open across the turn (it never closes, or reopens within
        /// ``StoreCalendar/shortestClosing``), so the line and the count inside go on as they were — nobody
        /// waiting loses their place (an older kiosk, which does not read it, expires them and says it wants an
        /// update). Every station and the server write it with the same id
        /// (``StoreEvent/dayStarted(_:hours:keepsLine:store:device:at:)``), so the log holds it once. The same day
        /// again with hours (``StoreCalendar/dayRestated(_:store:device:at:)``) changes only the day's hours.
        case dayStarted(BusinessDay, hours: DayHours?, keepsLine: Bool = false)
        /// The door refused a scan (`reason` is ``AdmissionDecision/reason``); the ticket if it could be read.
        /// Changes nothing in the queue: it keeps every decision in the log.
        case scanRefused(reason: String, ticket: TicketID?, door: DeviceID)
        /// Staff counted the people inside (`by`: the manager's user name, or the door that recorded it): the
        /// count is `inside` at the event's time, and admissions and exits go on from there; those stamped
        /// before it (a door that was offline) no longer change the count (``StaffCount``).
        case countCorrected(inside: Int, by: String)
        /// Staff let `people` in without a ticket (a carer, a delivery), for `reason`: they count inside like
        /// admitted holders.
        case letIn(people: Int, reason: String, by: String)
        /// Staff paused the calls at the event's time (``LinePause``), for `reason`, until `until` (nil: until
        /// they resume): nobody is called or admitted by ticket meanwhile.
        case linePaused(reason: String, until: Timestamp?, by: String)
        /// Staff resumed the calls: the latest pause ends at the event's time.
        case lineResumed(by: String)
        /// The ticket's holder told the page its trip to the door takes `minutes` (``HolderJourney``): once
        /// called, its window lasts long enough for the trip. The server writes it, for the ticket's holder.
        case journeyTold(TicketID, minutes: Int)
        /// An event of a type this version does not know — a newer server's or device's (docs/architecture.md#sync): kept as
        /// it came, `fields` all but its `type`, for the version that will know it; it changes nothing here.
        /// Nothing of this version writes one, and the server refuses one from a kiosk.
        case unknown(type: String, fields: [String: JSONValue])
    }

    /// The ticket this event is about, if any.
    public var ticketID: TicketID? {
        switch body {
        case .ticketIssued(let ticket, _): return ticket.id
        case .ticketTaken(let id), .ticketAdmitted(let id, _), .ticketExpired(let id), .ticketCancelled(let id),
            .journeyTold(let id, _):
            return id
        case .scanRefused(_, let id, _): return id
        case .customerExited, .capacityChanged, .dayStarted, .countCorrected, .letIn, .linePaused, .lineResumed,
            .unknown:
            return nil
        }
    }

    /// The event's type as it is named on the wire, in the database and in logs: a known one's ``Kind``, an
    /// unknown one's as it came.
    public var kind: String {
        if case .unknown(let type, _) = body { return type }
        return body.known?.rawValue ?? ""  // every other body has its Kind
    }
}

extension StoreEvent {
    /// A new event made by `device` at `now`: a fresh UUIDv7 id, no server sequence yet.
    public static func new(_ body: Body, store: StoreID, device: DeviceID, at now: Timestamp) -> StoreEvent {
        StoreEvent(id: .v7(at: now), store: store, device: device, time: now, body: body)
    }
}

extension StoreEvent {
    /// The event that starts business day `day` of `store` at `start` (its line's start, ``StoreCalendar``).
    /// Its id is derived from the store and the day, not drawn at random: every station and the server that
    /// notice the new day write the same event, and the log, which ignores a second append of an id, keeps one.
    public static func dayStarted(
        _ day: BusinessDay,
        hours: DayHours? = nil,
        keepsLine: Bool = false,
        store: StoreID,
        device: DeviceID,
        at start: Timestamp
    ) -> StoreEvent {
        StoreEvent(
            id: dayStartedID(day, store: store),
            store: store,
            device: device,
            time: start,
            body: .dayStarted(day, hours: hours, keepsLine: keepsLine)
        )
    }

    /// The id every device gives `store`'s start of `day`.
    public static func dayStartedID(_ day: BusinessDay, store: StoreID) -> EventID {
        .derived(from: "dayStarted \(store.uuidString) \(day.number)")
    }

    /// Whether the event's id may stand for it: a random id (UUIDv7) for any event, a derived one only for the
    /// event it derives (this store's start of this day). Derived ids can be computed by anyone who knows a
    /// store's id; one claimed by another event would keep the day it names from ever starting.
    public var isDerivedCorrectly: Bool {
        guard id.isDerived else { return true }
        guard case .dayStarted(let day, _, _) = body else { return false }
        return id == Self.dayStartedID(day, store: store)
    }
}
