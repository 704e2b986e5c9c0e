import Foundation
import KioskCore
import ServiceSupport
import Testing

@testable import CLupServer
@testable import Rigs

/// clup-server's side of the day's edges: a store that hands out virtual tickets from an hour before opening
/// refuses earlier (409, reason closed, with when), takes them in its window as the next day's, calls them at
/// opening; its start page and ticket page say when it opens; its manager's new hours restate the day.
@Suite(.serialized) struct StoreHoursTests {
    /// Wednesday 25 November 2026 on the store's clock (UTC).
    static func at(_ hour: Int, _ minute: Int = 0, day: Int64 = 25) -> Timestamp {
        BusinessDay(year: 2026, month: 11, day: day).instant(
            secondsAfterMidnight: hour * 3600 + minute * 60,
            zone: .utc
        )
    }

    @Test(arguments: Backend.available) func ticketsAreHandedOutFromTheStoresWindowAndCalledAtOpening(
        _ backend: Backend
    ) async throws {
        try await serving(at: Self.at(5, 30), backend: backend) { server, clock, offset in
            let store = try await server.registerStore([
                "capacity": 1, "timeZone": "UTC", "openingHours": ServerRig.hours("07:00", "21:00"),
                "ticketsBeforeOpeningMinutes": 60,
            ])
            let path = "/v1/stores/\(store.uuidString)/tickets"
            // 05:30: before the window.
            let early = try await server.exchange("POST", path, token: nil)
            let refusal = try JSONSerialization.jsonObject(with: early.body) as? [String: Any]
            #expect(early.status == 409 && refusal?["reason"] as? String == "closed", "\(String(describing: refusal))")
            #expect((refusal?["error"] as? String)?.contains("opens at 07:00; tickets from 06:00") == true)
            let summary = try await server.call("GET", "/v1/stores?q=Test", token: nil)
            let listed = (summary.body["stores"] as? [[String: Any]])?.first
            #expect(listed?["open"] as? Bool == false)
            #expect(listed?["ticketsFrom"] as? Int == Int(Self.at(6).milliseconds))
            let page = try await server.exchange("GET", "/?q=Test", token: nil)
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(html.contains("Closed — opens at 07:00") && html.contains("Virtual tickets from 06:00."))
            #expect(!html.contains("data-take="), "a take button before the window")

            // 06:30: in the window, the day's first, waiting for the opening.
            offset.move(clock, to: Self.at(6, 30))
            let first = try await server.call("POST", path, token: nil)
            #expect(first.status == 201, "\(first.body)")
            #expect((first.body["ticket"] as? [String: Any])?["code"] as? String == "V001")
            #expect(first.body["stage"] as? String == "waiting")
            #expect(first.body["opensAt"] as? Int == Int(Self.at(7).milliseconds))
            let wait = try #require(first.body["estimatedWaitSeconds"] as? Int)
            #expect(wait >= 29 * 60, "the wait counts from the opening: \(wait) s")
            let second = try await server.call(
                "POST",
                path,
                token: nil,
                headers: ["X-Forwarded-For": "10.0.0.2"]
            )
            #expect((second.body["ticket"] as? [String: Any])?["code"] as? String == "V002")
            let qr = try #require(second.body["qr"] as? String)
            let ticketPage = try await server.exchange(
                "GET",
                "/T/" + String(qr.dropFirst(ServerApp.Options(adminToken: "").statusURL.count)),
                token: nil
            )
            #expect(
                String(decoding: ticketPage.body, as: UTF8.self)
                    .contains("The store opens at 07:00 — you are number 2 in line.")
            )

            // 07:00: the first is called (capacity 1), with its call window from the opening.
            offset.move(clock, to: Self.at(7, 0) + .seconds(2))
            let id = try #require((first.body["ticket"] as? [String: Any])?["id"] as? String)
            let called = try await server.call("GET", "/v1/tickets/\(id)", token: nil)
            #expect(called.body["stage"] as? String == "called" && called.body["opensAt"] == nil)
            #expect(server.queue(store)?.callTime(of: UUID(uuidString: id)!, at: clock.now()) == Self.at(7))
        }
    }

    /// Registered in the evening after closing (its line waits for tomorrow), then open round the clock: the
    /// waiting day opens now, under its own number, and the door may admit at once.
    @Test func newHoursOpenAWaitingDayNow() async throws {
        try await serving(at: Self.at(22, 0)) { server, clock, offset in
            let store = try await server.registerStore(
                ["timeZone": "UTC", "openingHours": ServerRig.hours("07:00", "21:00")]
            )
            let tomorrow = BusinessDay(year: 2026, month: 11, day: 26)
            try await waitFor { server.queue(store)?.day == tomorrow }
            #expect(server.queue(store)?.isOpen(at: clock.now()) == false)
            let changed = try await server.call(
                "PATCH",
                "/v1/stores/\(store.uuidString)",
                json: ["openingHours": ServerRig.hours("00:00", "24:00")]
            )
            #expect(changed.status == 200)
            try await waitFor { server.queue(store)?.isOpen(at: clock.now()) == true }
            #expect(server.queue(store)?.day == tomorrow)
            let taken = try await server.call("POST", "/v1/stores/\(store.uuidString)/tickets", token: nil)
            #expect(taken.status == 201 && taken.body["stage"] as? String == "called")
        }
    }

    /// A round-the-clock store set as 00:00–23:59: the day turns at 23:59 and its line goes on into the next —
    /// the holder called before midnight is still called after it, the one waiting still waits, first in line.
    @Test func aRoundTheClockStoreKeepsItsLineOverMidnight() async throws {
        try await serving(at: Self.at(23, 56)) { server, clock, offset in
            let store = try await server.registerStore(
                ["capacity": 1, "timeZone": "UTC", "openingHours": ServerRig.hours("00:00", "23:59")]
            )
            let path = "/v1/stores/\(store.uuidString)/tickets"
            let first = try await server.call("POST", path, token: nil)
            let second = try await server.call("POST", path, token: nil, headers: ["X-Forwarded-For": "10.0.0.2"])
            #expect(first.body["stage"] as? String == "called" && second.body["stage"] as? String == "waiting")
            let ids = [first, second].compactMap { ($0.body["ticket"] as? [String: Any])?["id"] as? String }
            try #require(ids.count == 2)

            offset.move(clock, to: Self.at(0, 0, day: 26) + .seconds(30))
            try await waitFor { server.queue(store)?.day == BusinessDay(year: 2026, month: 11, day: 26) }
            #expect(server.queue(store)?.lineKept == true)
            let called = try await server.call("GET", "/v1/tickets/\(ids[0])", token: nil)
            let waiting = try await server.call("GET", "/v1/tickets/\(ids[1])", token: nil)
            #expect(called.status == 200 && called.body["stage"] as? String == "called", "\(called.body)")
            #expect(waiting.status == 200 && waiting.body["stage"] as? String == "waiting", "\(waiting.body)")
            #expect(waiting.body["peopleAhead"] as? Int == 1, "\(waiting.body)")
        }
    }

    /// The manager opens later today, after the day's line began: the day's start is said again with the new
    /// hours, and nobody is called until then.
    @Test func newHoursRestateTheDay() async throws {
        try await serving(at: Self.at(6, 0)) { server, clock, offset in
            let store = try await server.registerStore(
                ["timeZone": "UTC", "openingHours": ServerRig.hours("07:00", "21:00")]
            )
            try await waitFor { server.queue(store)?.hours?.opens == Self.at(7) }
            let changed = try await server.call(
                "PATCH",
                "/v1/stores/\(store.uuidString)",
                json: ["openingHours": ServerRig.hours("09:30", "21:00"), "ticketsBeforeOpeningMinutes": 30]
            )
            #expect(changed.status == 200 && changed.body["ticketsBeforeOpeningMinutes"] as? Int == 30)
            try await waitFor { server.queue(store)?.hours?.opens == Self.at(9, 30) }
            #expect(server.queue(store)?.isOpen(at: Self.at(8)) == false)
            #expect(server.queue(store)?.day == BusinessDay(year: 2026, month: 11, day: 25))
            let restated = try await server.app.database.events(store: store, after: 0, limit: .max)
                .filter { $0.kind == "dayStarted" }
            #expect(restated.count == 2, "the day's start, then its new hours")
            // Null: tickets all the time the store is closed again.
            let allNight = try await server.call(
                "PATCH",
                "/v1/stores/\(store.uuidString)",
                json: ["ticketsBeforeOpeningMinutes": NSNull()]
            )
            #expect(allNight.status == 200 && allNight.body["ticketsBeforeOpeningMinutes"] is NSNull)
            // A week without an open day is refused.
            let shut = try await server.call(
                "PATCH",
                "/v1/stores/\(store.uuidString)",
                json: ["openingHours": Array(repeating: NSNull(), count: 7)]
            )
            #expect(shut.status == 400 && shut.body["field"] as? String == "openingHours")
        }
    }

    /// A store that stops issuing once the wait passes closing (``LastTickets``): half an hour before closing, the
    /// first ticket (nobody ahead) is taken; the next, which would wait an hour-long visit, is refused 409 with
    /// reason `past_closing` and when the store closes; off, it is taken. Its kiosks get the setting.
    @Test func noMoreTicketsOnceTheWaitPassesClosing() async throws {
        try await serving(at: Self.at(20, 30)) { server, _, _ in
            let store = try await server.registerStore([
                "capacity": 1, "timeZone": "UTC", "openingHours": ServerRig.hours("07:00", "21:00"),
                "averageVisitMinutes": 60, "stopTicketsPastClosing": true,
            ])
            #expect(try await server.takeAppTicket(store: store, from: 1).status == 201, "nobody ahead")
            let path = "/v1/stores/\(store.uuidString)/tickets"
            let late = try await server.exchange("POST", path, token: nil, headers: ["X-Forwarded-For": "10.8.0.2"])
            let refusal = try JSONSerialization.jsonObject(with: late.body) as? [String: Any]
            #expect(
                late.status == 409 && refusal?["reason"] as? String == "past_closing",
                "\(String(describing: refusal))"
            )
            #expect((refusal?["error"] as? String)?.contains("past closing at 21:00") == true)
            #expect(server.queue(store)?.waitingCount == 1, "nothing issued")
            let door = try await server.enroll("door-1", store: store, role: .door)
            let pulled = try await server.call(
                "GET",
                "/v1/stores/\(store.uuidString)/events?after=0",
                token: door,
                headers: PauseTests.speaks2
            )
            #expect((pulled.body["settings"] as? [String: Any])?["stopTicketsPastClosing"] as? Bool == true)
            let off = try await server.call(
                "PATCH",
                "/v1/stores/\(store.uuidString)",
                json: ["stopTicketsPastClosing": false]
            )
            #expect(off.status == 200, "\(off)")
            #expect(try await server.takeAppTicket(store: store, from: 3).status == 201, "handed out until closing")
        }
    }

    /// A server whose clock reads `start` (the test moves it on through `offset`), stopped after `body` whatever
    /// `body` threw.
    private func serving(
        at start: Timestamp,
        backend: Backend = .sqlite,
        _ body: (ServerRig, WallClock, WallClock.Offset) async throws -> Void
    ) async throws {
        let offset = WallClock.Offset()
        let clock = WallClock.shifted(by: offset)
        offset.move(clock, to: start)
        let server = try await ServerRig(clock: clock, backend: backend)
        do {
            try await body(server, clock, offset)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    private func waitFor(_ condition: () -> Bool) async throws {
        for _ in 0..<100 where !condition() { try await Task.sleep(for: .milliseconds(50)) }
        #expect(condition())
    }
}
