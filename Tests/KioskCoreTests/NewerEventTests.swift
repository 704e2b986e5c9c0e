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

    @Test func aKnownTypeIgnoresFieldsItDoesNotKnow() throws {
        let id = UUID()
        let json = #"{"type":"ticketExpired","ticketId":"\#(id.uuidString)","secondCall":3}"#
        #expect(try JSONDecoder().decode(StoreEvent.Body.self, from: Data(json.utf8)) == .ticketExpired(id))
    }

    @Test func aBodyWithoutAnObjectOrTypeIsStillAnError() {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(StoreEvent.Body.self, from: Data("[1]".utf8)) }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(StoreEvent.Body.self, from: Data(#"{"reason":"x"}"#.utf8))
        }
    }
}
