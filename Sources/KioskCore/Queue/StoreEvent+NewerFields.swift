/// Fields of a known event type that this version does not know — a newer server's or device's, say a party's
/// size on `ticketIssued` (docs/architecture.md#sync). They are kept beside the body (``StoreEvent/newerFields``),
/// written back wherever the event is written (the wire, the kiosk's and the server's stores), and change
/// nothing this version folds: an older kiosk or replica neither loses them nor guesses at them, and a newer
/// one that reads the log later finds them. A field is newer when this version does not read it on that type
/// (``Body/fieldNames``).
extension StoreEvent {
    /// The body as it is written: its own fields and the newer ones, in one flat object.
    public struct StoredBody: Sendable, Hashable, Codable {
        public var body: Body
        public var newerFields: [String: JSONValue]

        public init(body: Body, newerFields: [String: JSONValue] = [:]) {
            self.body = body
            self.newerFields = newerFields
        }

        public init(from decoder: any Decoder) throws {
            body = try Body(from: decoder)
            newerFields = [:]
            // An unknown type keeps all its fields in the body already.
            if case .unknown = body { return }
            let all = try decoder.container(keyedBy: JSONValue.AnyKey.self)
            let known = body.fieldNames
            for key in all.allKeys where !known.contains(key.stringValue) {
                newerFields[key.stringValue] = try all.decode(JSONValue.self, forKey: key)
            }
        }

        public func encode(to encoder: any Encoder) throws {
            try body.encode(to: encoder)
            guard !newerFields.isEmpty else { return }
            // The same object: an encoder's keyed containers at one path share it.
            var c = encoder.container(keyedBy: JSONValue.AnyKey.self)
            let known = body.fieldNames
            for (name, value) in newerFields where !known.contains(name) {
                try c.encode(value, forKey: JSONValue.AnyKey(name))
            }
        }
    }

    /// An event from the columns a log keeps it in (times in milliseconds since 1970) and its stored body: the
    /// one way the kiosk's database and both of the server's read a row back.
    public init(
        logged id: EventID,
        store: StoreID,
        device: DeviceID,
        time: Int64,
        body: StoredBody,
        sequence: Int64?,
        receivedAt: Int64?
    ) {
        self.init(
            id: id,
            store: store,
            device: device,
            time: Timestamp(milliseconds: time),
            body: body.body,
            sequence: sequence,
            receivedAt: receivedAt.map(Timestamp.init(milliseconds:)),
            newerFields: body.newerFields
        )
    }

    /// The body and its newer fields, as written.
    public var storedBody: StoredBody {
        get { StoredBody(body: body, newerFields: newerFields) }
        set {
            body = newValue.body
            newerFields = newValue.newerFields
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, store, device, time, body, sequence, receivedAt
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let stored = try c.decode(StoredBody.self, forKey: .body)
        self.init(
            id: try c.decode(EventID.self, forKey: .id),
            store: try c.decode(StoreID.self, forKey: .store),
            device: try c.decode(DeviceID.self, forKey: .device),
            time: try c.decode(Timestamp.self, forKey: .time),
            body: stored.body,
            sequence: try c.decodeIfPresent(Int64.self, forKey: .sequence),
            receivedAt: try c.decodeIfPresent(Timestamp.self, forKey: .receivedAt),
            newerFields: stored.newerFields
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(store, forKey: .store)
        try c.encode(device, forKey: .device)
        try c.encode(time, forKey: .time)
        try c.encode(storedBody, forKey: .body)
        try c.encodeIfPresent(sequence, forKey: .sequence)
        try c.encodeIfPresent(receivedAt, forKey: .receivedAt)
    }
}

extension StoreEvent.Body {
    /// The fields this version reads on a body of this type (`type` included).
    public var fieldNames: Set<String> {
        let keys: [CodingKeys]
        switch self {
        case .ticketIssued: keys = [.type, .ticket, .told]
        case .ticketTaken, .ticketExpired, .ticketCancelled: keys = [.type, .ticketId]
        case .ticketAdmitted: keys = [.type, .ticketId, .door]
        case .customerExited: keys = [.type]
        case .capacityChanged: keys = [.type, .capacity]
        case .dayStarted: keys = [.type, .day, .opens, .closes, .keepsLine]
        case .scanRefused: keys = [.type, .reason, .ticketId, .door]
        case .countCorrected: keys = [.type, .inside, .by]
        case .letIn: keys = [.type, .people, .reason, .by]
        case .linePaused: keys = [.type, .reason, .until, .by]
        case .lineResumed: keys = [.type, .by]
        case .journeyTold: keys = [.type, .ticketId, .minutes]
        case .unknown(_, let fields): return Set(fields.keys).union([CodingKeys.type.stringValue])
        }
        return Set(keys.map(\.stringValue))
    }
}
