import CLupServer
import Foundation
import KioskCore
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking

@testable import Rigs
#endif

/// A holder tells the server its journey (`PUT /v1/tickets/{id}/journey`, ``HolderJourney``) so that, once
/// called, its ticket's window reaches the trip: only the device that took the ticket, whole minutes in range, a
/// bounded number of times, only while the ticket waits; a kiosk's credential cannot write one.
@Suite(.serialized) struct JourneyTellTests {
    @Test func theHolderAloneStretchesItsCallWindowWithinItsBounds() async throws {
        let server = try await ServerRig()
        do {
            let store = try await server.registerStore(["name": "Mercato Centrale", "capacity": 1], manager: "anna")
            var tickets: [(id: String, holder: String)] = []
            for n in 0..<3 {
                let taken = try await server.call(
                    "POST",
                    "/v1/stores/\(store.uuidString)/tickets",
                    token: nil,
                    headers: ["X-Forwarded-For": "10.9.1.\(n)"]
                )
                tickets.append(
                    (
                        try #require((taken.body["ticket"] as? [String: Any])?["id"] as? String, "\(taken)"),
                        try #require(taken.body["holderToken"] as? String)
                    )
                )
            }
            func tell(_ index: Int, _ body: Any, holder: String?) async throws -> (status: Int, body: [String: Any]) {
                var headers: [String: String] = ["Content-Type": "application/json"]
                if let holder { headers["Clup-Holder"] = holder }
                let raw = try JSONSerialization.data(withJSONObject: body)
                return try await server.call(
                    "PUT",
                    "/v1/tickets/\(tickets[index].id)/journey",
                    token: nil,
                    raw: raw,
                    headers: headers
                )
            }
            let first = try #require(UUID(uuidString: tickets[0].id))
            // Only the device that took it.
            #expect(try await tell(0, ["minutes": 25], holder: nil).status == 401)
            #expect(try await tell(0, ["minutes": 25], holder: "made.up").status == 401)
            #expect(try await tell(0, ["minutes": 25], holder: tickets[1].holder).status == 403)
            let unknown = try await server.call(
                "PUT",
                "/v1/tickets/\(UUID().uuidString)/journey",
                token: nil,
                json: ["minutes": 25],
                headers: ["Clup-Holder": tickets[0].holder]
            )
            #expect(unknown.status == 404)
            // Whole minutes, 1 to 240, in a small body.
            for bad: Any in [0, 241, -3, 12.5, "25", 99_999_999_999_999] {
                let refused = try await tell(0, ["minutes": bad], holder: tickets[0].holder)
                #expect(refused.status == 400, "\(bad): \(refused)")
            }
            #expect(
                try await tell(
                    0,
                    ["minutes": 25, "pad": String(repeating: "x", count: 5000)],
                    holder: tickets[0].holder
                ).status == 413
            )
            #expect(server.queue(store)?.journeys[first] == nil, "nothing written by a refusal")

            // The first, called as it was taken: its window now lasts the trip and its margin.
            let told = try await tell(0, ["minutes": 25], holder: tickets[0].holder)
            #expect(told.status == 200 && told.body["minutes"] as? Int == 25, "\(told)")
            #expect(told.body["callWindowMinutes"] as? Int == 27, "\(told)")
            #expect(server.queue(store)?.journeys[first] == 25)
            let status = try await server.call("GET", "/v1/tickets/\(tickets[0].id)", token: nil).body
            let calledAt = try #require(server.queue(store)?.callTime(of: first, at: PauseTests.now())).milliseconds
            // From the telling, a moment after the call.
            let ends = try #require(status["callEndsAt"] as? Int64, "\(status)")
            #expect((calledAt + 27 * 60_000...PauseTests.now().milliseconds + 27 * 60_000).contains(ends), "\(status)")
            // The same minutes again write nothing; three different tellings, then the last one counts.
            #expect(try await tell(0, ["minutes": 25], holder: tickets[0].holder).status == 200)
            #expect(server.queue(store)?.journeys.times(first) == 1)
            #expect(
                try await tell(0, ["minutes": 200], holder: tickets[0].holder).body["callWindowMinutes"] as? Int == 30
            )
            #expect(try await tell(0, ["minutes": 40], holder: tickets[0].holder).status == 200)
            let fourth = try await tell(0, ["minutes": 50], holder: tickets[0].holder)
            #expect(fourth.status == 409 && server.queue(store)?.journeys[first] == 40, "\(fourth)")

            // A ticket no longer in line: nothing to reach.
            let cancelled = try await server.call(
                "DELETE",
                "/v1/tickets/\(tickets[2].id)",
                token: nil,
                headers: ["Clup-Holder": tickets[2].holder]
            )
            #expect(cancelled.status == 200, "\(cancelled)")
            #expect(try await tell(2, ["minutes": 10], holder: tickets[2].holder).status == 409)

            // A kiosk's credential cannot write one, for its store's ticket or any.
            let door = try await server.enroll("door-1", store: store, role: .both)
            let now = PauseTests.now()
            let forged = StoreEvent(
                id: .v7(at: now),
                store: store,
                device: "door-1",
                time: now,
                body: .journeyTold(try #require(UUID(uuidString: tickets[1].id)), minutes: 60)
            )
            let pushed = try await AttackRoundThreeTests.push(
                server,
                [forged],
                store: store,
                credential: door,
                headers: PauseTests.speaks2
            )
            #expect(pushed.status == 403, "\(pushed)")
            #expect(server.queue(store)?.journeys[try #require(UUID(uuidString: tickets[1].id))] == nil)

            // The export says it.
            let anna = try await StaffCountTests.login(server, "anna")
            let (_, csv) = try await server.exchange("GET", "/v1/stores/\(store.uuidString)/export", token: anna)
            #expect(String(decoding: csv, as: UTF8.self).contains("holder's journey 25 min"))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
