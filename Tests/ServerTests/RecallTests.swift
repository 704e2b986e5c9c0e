import CLupServer
import Foundation
import KioskCore
import ServiceSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking

@testable import Rigs
#endif

/// The store's second call (``RecallPolicy``) through the server: set by its manager (API and console form, in
/// range or refused by name), carried to its kiosks with the log, and told on the holder's status — which call it
/// is and when its window ends — as the clock passes each recall.
@Suite(.serialized) struct RecallTests {
    @Test func aCalledTicketIsCalledAgainAsTheStoreSetItWithinItsWindow() async throws {
        let offset = WallClock.Offset()
        let clock = WallClock.shifted(by: offset)
        let server = try await ServerRig(clock: clock)
        do {
            let store = try await server.registerStore(["capacity": 1], manager: "anna")
            _ = try await server.registerStore(["name": "Other Market"], manager: "bruno")
            let anna = try await StaffCountTests.login(server, "anna")
            let bruno = try await StaffCountTests.login(server, "bruno")
            let base = "/v1/stores/\(store.uuidString)"
            // Off unless set; out of range or another store's manager: refused, the setting as it was.
            let profile = try await server.call("PATCH", base, token: anna, json: [String: Any]())
            #expect(profile.body["recallMinutes"] as? Int == 0 && profile.body["recalls"] as? Int == 1, "\(profile)")
            let bad: [([String: Any], String)] = [
                (["recallMinutes": 61], "recallMinutes"), (["recallMinutes": -1], "recallMinutes"),
                (["recalls": 0], "recalls"), (["recalls": 6], "recalls"),
            ]
            for (body, field) in bad {
                let answer = try await server.call("PATCH", base, token: anna, json: body)
                #expect(answer.status == 400 && answer.body["field"] as? String == field, "\(body): \(answer)")
            }
            #expect(try await server.call("PATCH", base, token: bruno, json: ["recallMinutes": 3]).status == 403)
            let set = try await server.call("PATCH", base, token: anna, json: ["recallMinutes": 3, "recalls": 2])
            #expect(set.status == 200 && set.body["recallMinutes"] as? Int == 3, "\(set)")

            // Its kiosks get it with the log's next page.
            let door = try await server.enroll("door-1", store: store, role: .door)
            let pulled = try await server.call(
                "GET",
                base + "/events?after=0",
                token: door,
                headers: PauseTests.speaks2
            )
            let settings = pulled.body["settings"] as? [String: Any]
            #expect(settings?["recallMinutes"] as? Int == 3 && settings?["recalls"] as? Int == 2, "\(pulled)")

            // The first ticket is called at once (one free place); the second waits and has no call.
            let taken = try await server.call("POST", base + "/tickets", token: nil)
            let first = try #require((taken.body["ticket"] as? [String: Any])?["id"] as? String, "\(taken)")
            let qr = try #require(taken.body["qr"] as? String)
            let second = try await PauseTests.take(server, store, from: 2)
            let called = try await server.call("GET", "/v1/tickets/\(first)")
            #expect(called.body["stage"] as? String == "called" && called.body["call"] as? Int == 1, "\(called)")
            let ends = try #require(called.body["callEndsAt"] as? Int)
            let calledAt = try #require(
                server.queue(store)?.callTime(of: TicketID(uuidString: first)!, at: clock.now())
            )
            #expect(Int64(ends) == (calledAt + .seconds(600)).milliseconds, "the server's 10-minute window")
            let waiting = try await server.call("GET", "/v1/tickets/\(second)")
            #expect(waiting.body["call"] == nil && waiting.body["callEndsAt"] == nil, "\(waiting)")

            // Each recall as its time comes, two at most, and the window stays the first call's.
            for (minutes, call) in [(2, 1), (3, 2), (5, 2), (6, 3), (9, 3)] {
                offset.move(clock, to: calledAt + .seconds(minutes * 60 + 1))
                let status = try await server.call("GET", "/v1/tickets/\(first)")
                #expect(status.body["call"] as? Int == call, "at \(minutes) min: \(status)")
                #expect(status.body["callEndsAt"] as? Int == ends, "at \(minutes) min")
            }
            // The page says it in the store's language, with the window's end.
            let url = server.url + "/T/" + qr.dropFirst("HTTPS://CLUP.EXAMPLE/T/".count)
            let page = try await TicketPageTests.page(url, language: "it")
            #expect(page.html.contains("Sei chiamato di nuovo"), "\(page.html.prefix(400))")

            // Turned off: the ticket is on its first call again, as every kiosk says.
            #expect(try await server.call("PATCH", base, token: anna, json: ["recallMinutes": 0]).status == 200)
            #expect(try await server.call("GET", "/v1/tickets/\(first)").body["call"] as? Int == 1)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
