import Foundation
import KioskCore
import ServiceSupport
import Testing

@testable import CLupServer
@testable import Rigs

/// A store's IANA time zone on clup-server: slots, bookings and the business day follow its clock across
/// daylight saving changes (the server's clock is moved to the weekends of the changes in 2026), old clients'
/// fixed offsets still work, and names that are not zones are refused.
@Suite(.serialized) struct TimeZoneTests {
    /// Midnight UTC of a 2026 date, in milliseconds.
    static func utcMidnight(_ month: Int64, _ day: Int64) -> Int64 {
        BusinessDay(year: 2026, month: month, day: day).number * 86_400_000
    }

    /// The first slot's start of `date` and how many slots the day has.
    func slots(_ server: ServerRig, _ store: StoreID, _ date: String) async throws -> (first: Int64, count: Int) {
        let answer = try await server.call("GET", "/v1/stores/\(store.uuidString)/slots?date=\(date)", token: nil)
        let slots = answer.body["slots"] as? [[String: Any]] ?? []
        return (Int64(try #require(slots.first?["start"] as? Int)), slots.count)
    }

    /// Rome's spring change (29 March 2026, 02:00 → 03:00): the store opens at 07:00 and closes at 22:00 on its
    /// clock on both days; Sunday's line starts at Saturday's closing.
    @Test func springForwardKeepsTheStoresHours() async throws {
        let offset = WallClock.Offset()
        let clock = WallClock.shifted(by: offset)
        // Saturday 28 March, 12:00 UTC.
        offset.move(clock, to: Timestamp(milliseconds: Self.utcMidnight(3, 28) + 12 * 3_600_000))
        let server = try await ServerRig(clock: clock)
        do {
            let store = try await server.registerStore(Self.rome)
            let saturday = try await slots(server, store, "2026-03-28")
            let sunday = try await slots(server, store, "2026-03-29")
            let monday = try await slots(server, store, "2026-03-30")
            #expect(sunday.first == Self.utcMidnight(3, 29) + 5 * 3_600_000)  // 07:00 CEST
            #expect(monday.first == Self.utcMidnight(3, 30) + 5 * 3_600_000)
            #expect(sunday.count == 30 && monday.count == 30)  // 07:00–22:00, as on any day
            #expect(saturday.count <= 30)  // the morning's slots are past

            // A booking of Sunday's first slot is for Sunday, not Saturday evening.
            let booked = try await server.call(
                "POST",
                "/v1/stores/\(store.uuidString)/bookings",
                token: nil,
                json: ["slotStart": sunday.first]
            )
            #expect(booked.status == 201, "\(booked.body)")
            let saturdays = try await server.call("POST", "/v1/stores/\(store.uuidString)/tickets", token: nil)
            #expect((saturdays.body["ticket"] as? [String: Any])?["code"] as? String == "V001")
            _ = try await server.call("POST", "/v1/stores/\(store.uuidString)/tickets", token: nil)

            // Sunday's line starts at Saturday's closing, 22:00 CET = 21:00 UTC.
            let closing = Self.utcMidnight(3, 28) + 21 * 3_600_000
            offset.move(clock, to: Timestamp(milliseconds: closing - 5_000))
            try await Task.sleep(for: .seconds(2))
            let sundayNumber = BusinessDay(year: 2026, month: 3, day: 29)
            #expect(server.queue(store)?.day != sundayNumber)
            offset.advance(by: .seconds(10))
            try await waitFor { server.queue(store)?.day == sundayNumber }
            let events = try await server.app.database.events(
                store: store,
                from: closing,
                to: Self.utcMidnight(3, 30)
            )
            let start = try #require(events.first { if case .dayStarted = $0.body { true } else { false } })
            #expect(start.time == Timestamp(milliseconds: closing))
            // The night's first app ticket is Sunday's V001, and it waits for the opening.
            let ticket = try await server.call("POST", "/v1/stores/\(store.uuidString)/tickets", token: nil)
            #expect((ticket.body["ticket"] as? [String: Any])?["code"] as? String == "V001", "\(ticket.body)")
            #expect(ticket.body["stage"] as? String == "waiting")
            #expect(ticket.body["opensAt"] as? Int == Int(Self.utcMidnight(3, 29) + 5 * 3_600_000))

            // It opens at 07:00 CEST = 05:00 UTC, not at 06:00 UTC as on Saturday.
            let opening = Timestamp(milliseconds: Self.utcMidnight(3, 29) + 5 * 3_600_000)
            #expect(server.queue(store)?.isOpen(at: opening - .seconds(3600)) == false)
            #expect(server.queue(store)?.isOpen(at: opening - .seconds(1)) == false)
            #expect(server.queue(store)?.isOpen(at: opening) == true)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Rome's autumn change (25 October 2026, 03:00 → 02:00): the night is an hour longer, the hours the same.
    @Test func fallBackKeepsTheStoresHours() async throws {
        let offset = WallClock.Offset()
        let clock = WallClock.shifted(by: offset)
        offset.move(clock, to: Timestamp(milliseconds: Self.utcMidnight(10, 24) + 12 * 3_600_000))
        let server = try await ServerRig(clock: clock)
        do {
            let store = try await server.registerStore(Self.rome)
            let sunday = try await slots(server, store, "2026-10-25")
            let monday = try await slots(server, store, "2026-10-26")
            #expect(sunday.first == Self.utcMidnight(10, 25) + 6 * 3_600_000)  // 07:00 CET
            #expect(monday.first == Self.utcMidnight(10, 26) + 6 * 3_600_000)
            #expect(sunday.count == 30)
            // Saturday closes at 22:00 CEST = 20:00 UTC: Sunday's line starts then.
            offset.move(clock, to: Timestamp(milliseconds: Self.utcMidnight(10, 24) + 20 * 3_600_000 - 5_000))
            try await Task.sleep(for: .seconds(2))
            #expect(server.queue(store)?.day == BusinessDay(year: 2026, month: 10, day: 24))
            offset.advance(by: .seconds(10))
            try await waitFor { server.queue(store)?.day == BusinessDay(year: 2026, month: 10, day: 25) }
            // 05:30 UTC is 06:30 on the store's clock after the change: closed until 06:00 UTC.
            let opening = Timestamp(milliseconds: Self.utcMidnight(10, 25) + 6 * 3_600_000)
            #expect(server.queue(store)?.isOpen(at: opening - .seconds(1800)) == false)
            #expect(server.queue(store)?.isOpen(at: opening) == true)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// A Rome store open 07:00–22:00 every day, slots of 30 minutes.
    static var rome: [String: Any] {
        ["timeZone": "Europe/Rome", "slotMinutes": 30, "openingHours": ServerRig.hours("07:00", "22:00")]
    }

    @Test func zonesAreNamedCheckedAndOldOffsetsStillWork() async throws {
        let server = try await ServerRig()
        do {
            // An old client's fixed offset: the store's zone is that offset, answered both ways.
            let old = try await server.registerStore(["utcOffsetMinutes": 330], manager: "old")
            #expect(server.app.logs.store(old)?.record.profile.timeZone == "UTC+05:30")
            var answer = try await server.call("PATCH", "/v1/stores/\(old.uuidString)", json: ["capacity": 3])
            #expect(answer.body["timeZone"] as? String == "UTC+05:30")
            #expect(answer.body["utcOffsetMinutes"] as? Int == 330)
            // Its manager moves it to its real zone.
            answer = try await server.call("PATCH", "/v1/stores/\(old.uuidString)", json: ["timeZone": "Asia/Kolkata"])
            #expect(answer.status == 200 && answer.body["timeZone"] as? String == "Asia/Kolkata")
            #expect(answer.body["utcOffsetMinutes"] as? Int == 330)

            var profile = ServerRig.storeProfile
            profile.removeValue(forKey: "utcOffsetMinutes")
            for bad in [
                "Europe/Atlantis", "../../../etc/passwd", "/etc/localtime", "right/Europe/Rome", "",
                "Europe/Rome/../../x",
                String(repeating: "A/", count: 5000),
            ] {
                profile["timeZone"] = bad
                answer = try await server.call(
                    "POST",
                    "/v1/stores",
                    json: ["store": profile, "manager": ["username": "mgr-z", "password": "correct horse battery"]]
                )
                #expect(
                    answer.status == 400 && answer.body["field"] as? String == "store.timeZone",
                    "\(bad): \(answer)"
                )
                answer = try await server.call("PATCH", "/v1/stores/\(old.uuidString)", json: ["timeZone": bad])
                #expect(answer.status == 400 && answer.body["field"] as? String == "timeZone", "\(bad): \(answer)")
            }
            // Neither a zone nor an offset.
            answer = try await server.call(
                "POST",
                "/v1/stores",
                json: [
                    "store": profile.filter { $0.key != "timeZone" },
                    "manager": ["username": "mgr-n", "password": "correct horse battery"],
                ]
            )
            #expect(answer.status == 400, "\(answer)")
            #expect(server.app.logs.all.count == 1)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// A profile stored before time zones (its JSON has `utcOffsetMinutes` only) reads as that fixed offset.
    @Test func profilesStoredBeforeTimeZonesCarryOver() throws {
        let stored = """
            {"name":"Old","address":"Via Roma 1","location":{"latitude":45,"longitude":9},"capacity":5,
             "openingHours":[null,null,null,null,null,null,null],"utcOffsetMinutes":60,"averageVisitMinutes":20,
             "slotMinutes":15,"slotSize":1}
            """
        let profile = try JSONDecoder().decode(StoreProfile.self, from: Data(stored.utf8))
        #expect(profile.timeZone == "UTC+01:00")
        #expect(profile.zone.offset(at: Timestamp(milliseconds: Self.utcMidnight(7, 1))) == 3600)
        let again = try JSONDecoder().decode(StoreProfile.self, from: try JSONEncoder().encode(profile))
        #expect(again == profile)
    }

    private func waitFor(_ condition: () -> Bool) async throws {
        for _ in 0..<100 where !condition() { try await Task.sleep(for: .milliseconds(100)) }
        #expect(condition())
    }
}
