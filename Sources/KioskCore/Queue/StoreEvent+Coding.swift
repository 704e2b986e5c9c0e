/// The wire and disk form of an event body: a flat object with a `type` and its fields, e.g.
/// `{"type":"ticketAdmitted","ticketId":"…","door":"entrance"}` — what kiosks, the server and the OpenAPI
/// document share. An unknown type is kept as it came (``StoreEvent/Body/unknown(type:fields:)``): a newer
/// server's event reaches an older kiosk, which goes on pulling.
extension StoreEvent.Body {
    enum CodingKeys: String, CodingKey {
        case type, ticket, ticketId, door, reason, capacity, day, opens, closes, keepsLine, told, inside, people, by
        case until, minutes
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decode(String.self, forKey: .type)
        switch StoreEvent.Kind(rawValue: type) {
        case .ticketIssued:
            self = .ticketIssued(
                try c.decode(Ticket.self, forKey: .ticket),
                told: try c.decodeIfPresent(WaitRange.self, forKey: .told)
            )
        case .ticketTaken: self = .ticketTaken(try c.decode(TicketID.self, forKey: .ticketId))
        case .ticketAdmitted:
            self = .ticketAdmitted(
                try c.decode(TicketID.self, forKey: .ticketId),
                door: try c.decode(DeviceID.self, forKey: .door)
            )
        case .customerExited: self = .customerExited
        case .ticketExpired: self = .ticketExpired(try c.decode(TicketID.self, forKey: .ticketId))
        case .ticketCancelled: self = .ticketCancelled(try c.decode(TicketID.self, forKey: .ticketId))
        case .capacityChanged: self = .capacityChanged(try c.decode(Int.self, forKey: .capacity))
        case .dayStarted:
            let opens = try c.decodeIfPresent(Timestamp.self, forKey: .opens)
            self = .dayStarted(
                BusinessDay(number: try c.decode(Int64.self, forKey: .day)),
                hours: try opens.map {
                    DayHours(opens: $0, closes: try c.decodeIfPresent(Timestamp.self, forKey: .closes))
                },
                keepsLine: try c.decodeIfPresent(Bool.self, forKey: .keepsLine) ?? false
            )
        case .scanRefused:
            self = .scanRefused(
                reason: try c.decode(String.self, forKey: .reason),
                ticket: try c.decodeIfPresent(TicketID.self, forKey: .ticketId),
                door: try c.decode(DeviceID.self, forKey: .door)
            )
        case .countCorrected:
            self = .countCorrected(
                inside: try c.decode(Int.self, forKey: .inside),
                by: try c.decode(String.self, forKey: .by)
            )
        case .letIn:
            self = .letIn(
                people: try c.decode(Int.self, forKey: .people),
                reason: try c.decode(String.self, forKey: .reason),
                by: try c.decode(String.self, forKey: .by)
            )
        case .linePaused:
            self = .linePaused(
                reason: try c.decode(String.self, forKey: .reason),
                until: try c.decodeIfPresent(Timestamp.self, forKey: .until),
                by: try c.decode(String.self, forKey: .by)
            )
        case .lineResumed: self = .lineResumed(by: try c.decode(String.self, forKey: .by))
        case .journeyTold:
            self = .journeyTold(
                try c.decode(TicketID.self, forKey: .ticketId),
                minutes: try c.decode(Int.self, forKey: .minutes)
            )
        case nil:
            guard case .object(var fields) = try JSONValue(from: decoder) else {
                throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "an event is an object")
            }
            fields["type"] = nil
            self = .unknown(type: type, fields: fields)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if case .unknown(let type, let fields) = self {
            var object = fields
            object["type"] = .string(type)
            return try JSONValue.object(object).encode(to: encoder)
        }
        var c = encoder.container(keyedBy: CodingKeys.self)
        if let known { try c.encode(known.rawValue, forKey: .type) }
        switch self {
        case .ticketIssued(let ticket, let told):
            try c.encode(ticket, forKey: .ticket)
            try c.encodeIfPresent(told, forKey: .told)
        case .ticketTaken(let id):
            try c.encode(id, forKey: .ticketId)
        case .ticketAdmitted(let id, let door):
            try c.encode(id, forKey: .ticketId)
            try c.encode(door, forKey: .door)
        case .customerExited: break
        case .ticketExpired(let id):
            try c.encode(id, forKey: .ticketId)
        case .ticketCancelled(let id):
            try c.encode(id, forKey: .ticketId)
        case .capacityChanged(let capacity):
            try c.encode(capacity, forKey: .capacity)
        case .dayStarted(let day, let hours, let keepsLine):
            try c.encode(day.number, forKey: .day)
            try c.encodeIfPresent(hours?.opens, forKey: .opens)
            try c.encodeIfPresent(hours?.closes, forKey: .closes)
            // Written only when true: a day that expires its line reads as it did before the field.
            if keepsLine { try c.encode(true, forKey: .keepsLine) }
        case .scanRefused(let reason, let ticket, let door):
            try c.encode(reason, forKey: .reason)
            try c.encodeIfPresent(ticket, forKey: .ticketId)
            try c.encode(door, forKey: .door)
        case .countCorrected(let inside, let by):
            try c.encode(inside, forKey: .inside)
            try c.encode(by, forKey: .by)
        case .letIn(let people, let reason, let by):
            try c.encode(people, forKey: .people)
            try c.encode(reason, forKey: .reason)
            try c.encode(by, forKey: .by)
        case .linePaused(let reason, let until, let by):
            try c.encode(reason, forKey: .reason)
            try c.encodeIfPresent(until, forKey: .until)
            try c.encode(by, forKey: .by)
        case .lineResumed(let by):
            try c.encode(by, forKey: .by)
        case .journeyTold(let id, let minutes):
            try c.encode(id, forKey: .ticketId)
            try c.encode(minutes, forKey: .minutes)
        case .unknown: break  // written above
        }
    }
}
