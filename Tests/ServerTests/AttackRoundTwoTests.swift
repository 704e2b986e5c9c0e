import Foundation
import KioskCore
import Testing

@testable import CLupServer
@testable import Rigs

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The second round of attacks on the public API (issue 32), each one as an attacker on the internet would
/// make it, and what the server does about it.
@Suite(.serialized) struct AttackRoundTwoTests {
    /// A kiosk of one store issues a paper ticket under the id of another store's ticket (seen in its QR): the
    /// append is refused, and the real ticket's status and its holder's cancel are untouched.
    @Test func aKioskCannotIssueUnderAnotherStoresTicketID() async throws {
        let server = try await ServerRig()
        do {
            let victimStore = try await server.registerStore(["name": "Victim Market"], manager: "victim")
            let rogueStore = try await server.registerStore(["name": "Rogue Market"], manager: "rogue")
            let credential = try await server.enroll("rogue", store: rogueStore)
            let taken = try await server.call("POST", "/v1/stores/\(victimStore.uuidString)/tickets", token: nil)
            let victim = try #require((taken.body["ticket"] as? [String: Any])?["id"] as? String)
            let holder = try #require(taken.body["holderToken"] as? String)
            let id = try #require(UUID(uuidString: victim))

            let now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
            let forged = Ticket(
                id: id,
                store: rogueStore,
                kind: .paper,
                code: TicketCode(prefix: "Z", number: 1),
                issuedAt: now,
                issuer: "rogue"
            )
            let event = StoreEvent.new(.ticketIssued(forged), store: rogueStore, device: "rogue", at: now)
            let answer = try await server.call(
                "POST",
                "/v1/stores/\(rogueStore.uuidString)/events",
                token: credential,
                raw: try JSONEncoder().encode(["events": [event]])
            )
            #expect(answer.status == 409, "\(answer.body)")
            #expect(answer.body["field"] as? String == "events[0].body.ticket.id")
            #expect(server.queue(rogueStore)?.entries.isEmpty == true)

            let status = try await server.call("GET", "/v1/tickets/\(victim)", token: nil)
            let ticket = status.body["ticket"] as? [String: Any]
            #expect(ticket?["code"] as? String == "V001" && ticket?["kind"] as? String == "app", "\(status.body)")
            let cancelled = try await server.call(
                "DELETE",
                "/v1/tickets/\(victim)",
                token: nil,
                headers: ["Clup-Holder": holder]
            )
            #expect(cancelled.status == 200 && cancelled.body["stage"] as? String == "cancelled")
            #expect(server.queue(victimStore)?.waiting.isEmpty == true)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
