import Foundation
import Testing

@testable import KioskCore

/// An event of a type this version does not know (a newer server's): read, kept as it came, written back the
/// same, folded as changing nothing but a count — never a decoding error that would stop a kiosk's pull.
@Suite struct NewerEventTests: TicketFixtures {
    let store = UUID()
    let signer = TicketSigner()
    let base = Timestamp(milliseconds: 1_795_000_000_000)

    /// A newer server's event, as its JSON would come in a page of the log.
    let newer = """
        {"type":"lineStopped","reason":"restock","until":1795000600000,"big":9007199254740993,
         "share":0.25,"staff":["ana","bo"],"nested":{"on":true,"none":null}}
        """

    @Test func anUnknownTypeIsKeptAsItCameAndWrittenBackTheSame() throws {
        let body = try JSONDecoder().decode(StoreEvent.Body.self, from: Data(newer.utf8))
        guard case .unknown(let type, let fields) = body else {
            Issue.record("decoded as \(body)")
            return
        }
        #expect(type == "lineStopped")
        #expect(fields["type"] == nil)
        #expect(fields["big"] == .integer(9_007_199_254_740_993), "a 64-bit integer stays exact")
        #expect(fields["nested"] == .object(["on": .bool(true), "none": .null]))
        let written = try JSONEncoder().encode(body)
        let again = try JSONDecoder().decode(StoreEvent.Body.self, from: written)
        #expect(again == body)
        let original = try JSONSerialization.jsonObject(with: Data(newer.utf8)) as? NSDictionary
        let roundTrip = try JSONSerialization.jsonObject(with: written) as? NSDictionary
        #expect(original == roundTrip, "the same object as it came")
        #expect(StoreEvent.new(body, store: store, device: "server", at: base).kind == "lineStopped")
        // A page of the log counts it at no less than its JSON, escapes and all.
        let controls = JSONValue.object([
            "a\u{1}": .string(String(repeating: "\u{0}\"", count: 50)), "n": .number(-1e-300),
        ])
        for value in [JSONValue.object(fields), controls] {
            #expect(value.wireBytesBound >= (try JSONEncoder().encode(value)).count)
        }
    }

    @Test func foldingItChangesNothingButItsCount() throws {
        let body = try JSONDecoder().decode(StoreEvent.Body.self, from: Data(newer.utf8))
        var state = QueueState(capacity: 5)
        let t = ticket(1, kind: .app, at: base)
        state.apply(event(.ticketIssued(t), at: base))
        var after = state
        after.apply(event(body, at: base + .seconds(1)))
        after.apply(event(body, at: base + .seconds(2)))
        #expect(after.newerEvents == 2)
        #expect(after.waitingCount == 1 && after.capacity == 5 && after.inside == 0)
        after.newerEvents = 0
        #expect(after == state, "nothing else moved")
        // A kept fold remembers the count; a snapshot of the version before it reads as none.
        after.newerEvents = 2
        #expect(QueueState(snapshot: after.snapshot)?.newerEvents == 2)
        #expect(KioskRole.allCases.allSatisfy { !$0.writes(body) }, "no kiosk of this version writes one")
    }

    @Test func aKnownTypeKeepsFieldsItDoesNotKnowAndFoldsWhatItKnows() throws {
        let state = QueueState(capacity: 5)
        var issued = state
        let t = ticket(1, kind: .app, at: base)
        issued.apply(event(.ticketIssued(t), at: base))
        let body = #"{"type":"ticketExpired","ticketId":"\#(t.id.uuidString)","secondCall":3,"by":{"staff":"ana"}}"#
        #expect(try JSONDecoder().decode(StoreEvent.Body.self, from: Data(body.utf8)) == .ticketExpired(t.id))
        let json =
            #"{"id":"\#(UUID().uuidString)","store":"\#(store.uuidString)","device":"server","#
            + #""time":\#(base.milliseconds + 1000),"body":\#(body)}"#
        let newer = try JSONDecoder().decode(StoreEvent.self, from: Data(json.utf8))
        #expect(newer.body == .ticketExpired(t.id))
        #expect(newer.newerFields == ["secondCall": .integer(3), "by": .object(["staff": .string("ana")])])
        // Written back with them, in the same flat body, wherever the event is written.
        let written = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(newer)) as? [String: Any]
        #expect(
            written?["body"] as? NSDictionary
                == (try JSONSerialization.jsonObject(with: Data(body.utf8)) as? NSDictionary)
        )
        #expect(try JSONDecoder().decode(StoreEvent.self, from: try JSONEncoder().encode(newer)) == newer)
        let stored = try JSONEncoder().encode(newer.storedBody)
        #expect(try JSONDecoder().decode(StoreEvent.StoredBody.self, from: stored) == newer.storedBody)
        // Folded as this version knows it, and counted as newer.
        var plain = issued
        plain.apply(event(.ticketExpired(t.id), at: base + .seconds(1)))
        var folded = issued
        folded.apply(newer)
        #expect(folded.newerEvents == 1 && plain.newerEvents == 0 && folded.waitingCount == 0)
        folded.newerEvents = 0
        #expect(folded == plain, "the rest of the fold is the same")
    }

    /// Each type's name is written once (``StoreEvent/Kind``): the body maps to it, writes it and is read back by
    /// it, with every field it names. The switch below fails to compile when a type is added without its sample.
    @Test func everyTypeThisVersionKnowsIsWrittenAndReadByItsOneName() throws {
        let t = ticket(1, kind: .app, at: base)
        let hours = DayHours(opens: base, closes: base + .seconds(3600))
        let told = WaitRange(point: .seconds(600), low: .seconds(480), high: .seconds(720))
        for kind in StoreEvent.Kind.allCases {
            let body: StoreEvent.Body =
                switch kind {
                case .ticketIssued: .ticketIssued(t, told: told)
                case .ticketTaken: .ticketTaken(t.id)
                case .ticketAdmitted: .ticketAdmitted(t.id, door: "door-1")
                case .customerExited: .customerExited
                case .ticketExpired: .ticketExpired(t.id)
                case .ticketCancelled: .ticketCancelled(t.id)
                case .capacityChanged: .capacityChanged(7)
                case .dayStarted: .dayStarted(BusinessDay(number: 20_000), hours: hours, keepsLine: true)
                case .scanRefused: .scanRefused(reason: "expired", ticket: t.id, door: "door-1")
                case .countCorrected: .countCorrected(inside: 17, by: "anna")
                case .letIn: .letIn(people: 2, reason: "a carer", by: "door-1")
                case .linePaused: .linePaused(reason: "restock", until: base + .seconds(600), by: "anna")
                case .lineResumed: .lineResumed(by: "door-1")
                case .journeyTold: .journeyTold(t.id, minutes: 25)
                }
            #expect(body.known == kind)
            let data = try JSONEncoder().encode(body)
            let written = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            #expect(written?["type"] as? String == kind.rawValue)
            #expect(Set(written?.keys.map { $0 } ?? []) == body.fieldNames, "\(kind): every field it reads, no other")
            #expect(try JSONDecoder().decode(StoreEvent.Body.self, from: data) == body)
            #expect(StoreEvent.new(body, store: store, device: "d", at: base).kind == kind.rawValue)
        }
    }

    @Test func aBodyWithoutAnObjectOrTypeIsStillAnError() {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(StoreEvent.Body.self, from: Data("[1]".utf8)) }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(StoreEvent.Body.self, from: Data(#"{"reason":"x"}"#.utf8))
        }
    }
}
