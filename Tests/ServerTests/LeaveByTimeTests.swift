import Foundation
import KioskCore
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking

@testable import Rigs
#endif

/// When a holder should leave for the store (issue 49): a status read that sends the holder's journey in
/// minutes says when to leave (`leaveAt`, floored to the minute) and whether that time has come; the ticket's
/// page says it too, with the form that sends the minutes (without JavaScript as well); the journey is checked
/// before anything is computed with it.
@Suite(.serialized) struct LeaveByTimeTests {
    @Test func aHolderAwayIsToldWhenToLeave() async throws {
        let server = try await ServerRig()
        do {
            let store = try await server.registerStore(["name": "Mercato Centrale", "capacity": 1])
            var taken: [[String: Any]] = []
            for _ in 0..<8 {
                taken.append(try await server.call("POST", "/v1/stores/\(store.uuidString)/tickets", token: nil).body)
            }
            let ids = try taken.map { try #require(($0["ticket"] as? [String: Any])?["id"] as? String) }
            let last = try #require(ids.last)
            func read(_ id: String, _ query: String = "") async throws -> (status: Int, body: [String: Any]) {
                let answer = try await server.call("GET", "/v1/tickets/\(id)\(query)", token: nil)
                return (answer.status, answer.body)
            }
            // Without a journey, nothing about leaving: the minutes are never kept, only sent.
            let plain = try await read(last)
            #expect(plain.body["leaveAt"] == nil && plain.body["journeyMinutes"] == nil)
            let point = try #require(plain.body["estimatedWaitSeconds"] as? Int)
            let low = try #require(plain.body["estimatedWaitLowSeconds"] as? Int)
            #expect(point > 20 * 60, "seven ahead in a store of one: a long wait (\(point) s)")

            // Five minutes away: leave so as to reach the door before the point of the wait, and not before
            // its low end less the margin.
            let before = server.app.logs.clock.now().milliseconds
            let told = try await read(last, "?journeyMinutes=5")
            let after = server.app.logs.clock.now().milliseconds
            #expect(told.status == 200)
            #expect(told.body["journeyMinutes"] as? Int == 5)
            let leaveAt = try #require(told.body["leaveAt"] as? Int64)
            #expect(leaveAt % 60_000 == 0, "floored to its minute")
            #expect(leaveAt + 5 * 60_000 <= after + Int64(point) * 1000, "at the door by the wait's point")
            #expect(leaveAt + 5 * 60_000 + 120_000 >= before + Int64(low) * 1000, "not before the range's low end")
            #expect(told.body["leaveNow"] as? Bool == false)

            // A journey longer than the wait: leave now. The first ticket is called: leave now, no time.
            let far = try await read(last, "?journeyMinutes=240")
            #expect(far.body["leaveNow"] as? Bool == true)
            #expect(try #require(far.body["leaveAt"] as? Int64) <= server.app.logs.clock.now().milliseconds)
            let called = try await read(ids[0], "?journeyMinutes=5")
            #expect(called.body["stage"] as? String == "called" && called.body["leaveNow"] as? Bool == true)
            #expect(called.body["leaveAt"] == nil)

            // Anything but whole minutes from 1 to 240 is refused, before any arithmetic.
            for bad in ["0", "241", "-3", "12.5", "1e2", "abc", "0005", "05", "+5", "%205", "99999999999999999999", ""]
            {
                let refused = try await read(last, "?journeyMinutes=\(bad)")
                #expect(refused.status == 400, "journeyMinutes=\(bad): \(refused)")
                #expect(refused.body["field"] as? String == "journeyMinutes", "\(refused.body)")
            }
            #expect(try await read(last, "/events?journeyMinutes=0").status == 400)

            // The stream carries it at each change.
            let stream = try EventStreamClient(port: server.port, path: "/v1/tickets/\(last)/events?journeyMinutes=5")
            let first = try #require(await stream.next())
            let event = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
            #expect(event["leaveAt"] as? Int64 == leaveAt || event["leaveAt"] as? Int64 == leaveAt + 60_000)

            // The page: the time in the store's clock, the form with the minutes, the privacy line; a bad
            // journey said on the page, not a failure.
            let qrs = try taken.map { try #require($0["qr"] as? String) }
            func page(_ qr: String, _ query: String = "") async throws -> (status: Int, html: String) {
                let path = "/T/" + qr.dropFirst("HTTPS://CLUP.EXAMPLE/T/".count)
                return try await TicketPageTests.page(server.url + path + query)
            }
            let shown = try await page(qrs[7], "?journeyMinutes=5")
            #expect(shown.html.contains(#"<p id="leave" class="leave" role="status""#))
            #expect(shown.html.contains("Leave at ") && shown.html.contains("your trip takes 5 min."))
            #expect(shown.html.contains(#"name="journeyMinutes" type="number" min="1" max="240""#))
            #expect(shown.html.contains(#"value="5""#))
            #expect(shown.html.contains("never where you are"))
            let italian = try await page(qrs[7], "?journeyMinutes=240&lang=it")
            #expect(italian.html.contains("Parti ora"))
            let bad = try await page(qrs[7], "?journeyMinutes=999")
            #expect(bad.status == 200 && bad.html.contains("Give your trip as whole minutes, from 1 to 240."))
            let calledPage = try await page(qrs[0], "?journeyMinutes=5")
            // Called, an app ticket keeps the form (its holder's device tells the server the trip) and says until
            // when the call lasts.
            #expect(calledPage.status == 200 && calledPage.html.contains(#"id="journey-box""#))
            #expect(calledPage.html.contains("Leave now — your call lasts until "))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
