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

    /// A kiosk credential does what a kiosk does, no more: the capacity is the manager's, and a day's start sent
    /// before the store's hours begin that day's line (which would end today's line: every ticket 404) is
    /// refused; an event further ahead than the clock skew sync needs (120 s) is refused too.
    @Test func aKioskCannotLiftTheCapacityNorStartTomorrowNow() async throws {
        let server = try await ServerRig()
        do {
            let store = try await server.registerStore(["capacity": 5], manager: "owner")
            let credential = try await server.enroll("k1", store: store)
            let taken = try await server.call("POST", "/v1/stores/\(store.uuidString)/tickets", token: nil)
            let victim = try #require((taken.body["ticket"] as? [String: Any])?["id"] as? String)
            let now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
            func push(_ event: StoreEvent) async throws -> (status: Int, field: String?) {
                let answer = try await server.call(
                    "POST",
                    "/v1/stores/\(store.uuidString)/events",
                    token: credential,
                    raw: try JSONEncoder().encode(["events": [event]])
                )
                return (answer.status, answer.body["field"] as? String)
            }
            let lift = try await push(.new(.capacityChanged(100_000), store: store, device: "k1", at: now))
            #expect(lift.status == 403 && lift.field == "events[0].body", "\(lift)")
            #expect(server.queue(store)?.capacity == 5)

            let calendar = try #require(server.app.logs.store(store)?.record.profile.calendar)
            let tomorrow = BusinessDay(number: calendar.businessDay(at: now).number + 1)
            let early = try await push(.dayStarted(tomorrow, store: store, device: "k1", at: now))
            #expect(early.status == 400 && early.field == "events[0].body.day", "\(early)")
            #expect(try await server.call("GET", "/v1/tickets/\(victim)", token: nil).status == 200)
            // Today's start, as every kiosk writes it, is still taken.
            let today = try await push(calendar.dayStarted(calendar.businessDay(at: now), store: store, device: "k1"))
            #expect(today.status == 200, "\(today)")

            let ahead = try await push(.new(.customerExited, store: store, device: "k1", at: now + .seconds(150)))
            #expect(ahead.status == 400 && ahead.field == "events[0].time", "\(ahead)")
            let near = try await push(.new(.customerExited, store: store, device: "k1", at: now + .seconds(60)))
            #expect(near.status == 200, "\(near)")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
