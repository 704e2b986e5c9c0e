import CLupServer
import DeviceEmulators
import Foundation
import KioskCore
import ServiceSupport
import Testing

@testable import KioskStation
@testable import Rigs

/// Kiosks and the real clup-server on loopback: paper tickets torn off at one kiosk reach the server and a
/// door kiosk, which verifies them with the key ring the server handed out and admits them in order; in the
/// end the server's queue and both kiosks' queues are the same fold of the same log.
@Suite(.serialized) struct SyncTests {
    @Test(
        .enabled(if: HIL.needs("zbarimg"), "zbarimg not installed (apt-get install zbar-tools; make test does it)"),
        arguments: Backend.available
    )
    func paperAndAppTicketsShareOneQueueAndOneDoor(_ backend: Backend) async throws {
        let server = try await ServerRig(backend: backend)
        let storeID = try await server.registerStore()
        let printerCredential = try await server.enroll("entrance-printer", store: storeID)
        let doorCredential = try await server.enroll("entrance-door", store: storeID)
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        let printer = try StationRig(profile: "custom-vkp80iii") {
            $0.syncing(
                with: server,
                store: storeID,
                device: "entrance-printer",
                credential: printerCredential,
                capacity: 2
            )
        }
        let door = try StationRig(profile: "custom-vkp80iii") {
            $0.syncing(with: server, store: storeID, device: "entrance-door", credential: doorCredential, capacity: 2)
            $0.printer.enabled = false
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)"
        }
        do {
            // A001 torn off, then an app ticket (V001), then A003: one queue by join time.
            try await printer.requireTickets(1)
            await printer.customerTakes()
            try await printer.requireTickets(2)
            #expect(await printer.wait(.seconds(10)) { server.queue(storeID)?.waiting.count == 1 } != nil)
            let app = try await server.call("POST", "/v1/stores/\(storeID.uuidString)/tickets", token: nil)
            #expect(app.status == 201)
            let appTicket = try #require((app.body["ticket"] as? [String: Any])?["id"] as? String)
            let appQR = try #require(app.body["qr"] as? String)
            #expect(app.body["peopleAhead"] as? Int == 1)
            #expect(await printer.wait(.seconds(10)) { printer.kiosk.queue.snapshot.waiting.count == 2 } != nil)
            // A002 was printed "1 person ahead" before V001 came: it goes back in, and A003 tells the truth.
            let reprinted = try await printer.requireTickets(3)
            #expect(printer.emulator.retractedTickets.map(\.number) == [2])
            #expect(reprinted[2].text.contains { $0.contains("2 people ahead") }, "\(reprinted[2].text)")
            await printer.customerTakes()
            let tickets = try await printer.requireTickets(4)
            // The ticket now waiting in the printer counts the app ticket among those ahead.
            #expect(tickets[3].text.contains { $0.contains("3 people ahead") }, "\(tickets[3].text)")
            #expect(await printer.wait(.seconds(10)) { server.queue(storeID)?.waiting.count == 3 } != nil)
            #expect(server.queue(storeID)?.waiting.map(\.code.description) == ["A001", "V001", "A003"])

            let doorStation = try #require(door.kiosk.door)
            // The door learns every ticket and the keys (its own, the printer's, the server's).
            #expect(await door.wait(.seconds(10)) { door.kiosk.queue.snapshot.waiting.count == 3 } != nil)
            #expect(door.kiosk.queue.snapshot.waiting.map(\.code.description) == ["A001", "V001", "A003"])
            #expect(await door.wait(.seconds(10)) { doorStation.keyRing.count == 3 } != nil)
            #expect(await door.wait { doorStation.status.state == "ready" } != nil)

            let pngs = try [tickets[0], tickets[2]].map { try #require($0.pngPath) }
            let paper = try pngs.map { try #require(try HIL.decodeQR(png: $0).first) }
            func scan(_ payload: String) async throws -> String? { try await door.scan(payload, on: scanner) }
            // Two places: A001 and V001 are called; A003 waits behind A001.
            #expect(try await scan(appQR) == "admit V001")
            #expect(try await scan(paper[1]) == "not_your_turn A003")
            #expect(try await scan(paper[0]) == "admit A001")
            #expect(try await scan(paper[1]) == "store_full A003")
            #expect(await door.wait(.seconds(10)) { server.queue(storeID)?.inside == 2 } != nil)
            #expect(await printer.wait(.seconds(10)) { printer.kiosk.queue.snapshot.inside == 2 } != nil)
            let status = try await server.call("GET", "/v1/tickets/\(appTicket)", token: nil)
            #expect(status.body["stage"] as? String == "admitted")

            // Everything confirmed: the same log folded in the server's order everywhere.
            for rig in [printer, door] {
                #expect(await rig.wait(.seconds(10)) { (try? rig.kiosk.store.outboxCount()) == 0 } != nil)
            }
            let last = server.app.logs.store(storeID)?.lastSequence ?? -1
            for rig in [printer, door] {
                #expect(await rig.wait(.seconds(10)) { rig.kiosk.sync?.status.lastSequence == last } != nil)
                #expect(rig.kiosk.queue.confirmedSnapshot == server.queue(storeID))
                #expect(rig.kiosk.queue.snapshot == server.queue(storeID))
                #expect(rig.kiosk.sync?.status.state == "online")
            }
        } catch {
            await door.stop()
            await printer.stop()
            await server.stop()
            throw error
        }
        await door.stop()
        await printer.stop()
        await server.stop()
    }

    /// A booking joins the line when its slot starts (behind who took a ticket before, ahead of who takes
    /// one after), is called then, and the door admits it; before its slot the door says "too early". The
    /// server and the kiosk share a shifted clock, so the slot comes without waiting for it. Everything happens
    /// in one business day: the clock starts at the next 08:00 in the store (UTC+1), the slot is 10:00 then
    /// (a ticket torn off before the store opens would belong to the day before, and expire when it opens).
    @Test(
        .enabled(if: HIL.needs("zbarimg"), "zbarimg not installed (apt-get install zbar-tools; make test does it)"),
        arguments: Backend.available
    )
    func bookingsAreCalledAtTheirSlot(_ backend: Backend) async throws {
        let offset = WallClock.Offset()
        let hour: Int64 = 3_600_000
        let real = Int64(Date().timeIntervalSince1970 * 1000)
        var morning = (real + hour) / (24 * hour) * (24 * hour) + 8 * hour - hour  // 08:00 at UTC+1
        if morning <= real { morning += 24 * hour }
        offset.advance(by: .milliseconds(morning - real))
        let clock = WallClock.shifted(by: offset)
        let server = try await ServerRig(clock: clock, backend: backend)
        let storeID = try await server.registerStore(["slotMinutes": 15])
        let credential = try await server.enroll("entrance", store: storeID)
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        let kiosk = try StationRig(profile: "custom-vkp80iii", clock: clock) {
            $0.store.id = storeID
            $0.store.capacity = 2
            $0.device.id = "entrance"
            $0.sync.server = server.url
            $0.store.timeZone = .standardStore  // as installed: no day guessed in UTC before the first sync
            $0.store.hours = .standardStore
            $0.sync.credential = credential
            $0.sync.pullWaitSeconds = 5
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)"
        }
        do {
            let door = try #require(kiosk.kiosk.door)
            func scan(_ payload: String) async throws -> String? { try await kiosk.scan(payload, on: scanner) }
            // That day's 10:00 slot in the store (UTC+1).
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyy-MM-dd"
            formatter.timeZone = TimeZone(secondsFromGMT: 3600)
            let date = formatter.string(from: Date(timeIntervalSince1970: Double(morning) / 1000))
            let slots = try await server.call("GET", "/v1/stores/\(storeID.uuidString)/slots?date=\(date)", token: nil)
            let start = try #require(
                (slots.body["slots"] as? [[String: Any]])?.compactMap { $0["start"] as? Int }
                    .first { Int64($0) == morning + 2 * hour }
            )
            let booking = try await server.call(
                "POST",
                "/v1/stores/\(storeID.uuidString)/bookings",
                token: nil,
                json: ["slotStart": start, "expectedVisitMinutes": 25]
            )
            #expect(booking.status == 201)
            let bookingQR = try #require(booking.body["qr"] as? String)
            let bookingID = try #require((booking.body["ticket"] as? [String: Any])?["id"] as? String)
            #expect(await kiosk.wait { kiosk.kiosk.queue.snapshot.waiting.count == 1 } != nil)
            #expect(await kiosk.wait { door.keyRing.count == 2 } != nil)  // its own and the server's
            #expect(kiosk.kiosk.queue.snapshot.line(at: clock.now()).isEmpty)  // booked, not in line yet
            #expect(try await scan(bookingQR) == "too_early B001")

            // Two minutes before the slot: A001 is torn off.
            let slotStart = Timestamp(milliseconds: Int64(start))
            offset.advance(by: (slotStart - .seconds(120)) - clock.now())
            try await kiosk.requireTickets(1)
            await kiosk.customerTakes()
            try await kiosk.requireTickets(2)
            #expect(await kiosk.wait { server.queue(storeID)?.line(at: clock.now()).count == 1 } != nil)
            var status = try await server.call("GET", "/v1/tickets/\(bookingID)", token: nil)
            #expect(status.body["stage"] as? String == "booked")
            // The expected visit is kept with the booking, on the server and in the kiosk's log.
            #expect((status.body["ticket"] as? [String: Any])?["expectedVisitMinutes"] as? Int == 25)
            let booked = kiosk.kiosk.queue.snapshot.entries.values.first { $0.ticket.kind == .booking }
            #expect(booked?.ticket.slot?.expectedVisitMinutes == 25)

            // The slot has started: B001 is in line behind A001 and called. A002 was printed "1 person ahead"
            // before: it goes back in, and A003, torn off now, comes after B001.
            offset.advance(by: (slotStart + .seconds(30)) - clock.now())
            try await kiosk.requireTickets(3)
            #expect(kiosk.emulator.retractedTickets.map(\.number) == [2])
            await kiosk.customerTakes()
            try await kiosk.requireTickets(4)
            let line = { (queue: QueueState?) in queue?.line(at: clock.now()).map(\.code.description) ?? [] }
            #expect(await kiosk.wait { line(server.queue(storeID)) == ["A001", "B001", "A003"] } != nil)
            #expect(await kiosk.wait { line(kiosk.kiosk.queue.snapshot) == ["A001", "B001", "A003"] } != nil)
            status = try await server.call("GET", "/v1/tickets/\(bookingID)", token: nil)
            #expect(status.body["stage"] as? String == "called")
            #expect(status.body["peopleAhead"] as? Int == 1)

            let paper = try [kiosk.emulator.tickets[0], kiosk.emulator.tickets[2]].map { ticket in
                let png = try #require(ticket.pngPath)
                return try #require(try HIL.decodeQR(png: png).first)
            }
            #expect(try await scan(bookingQR) == "admit B001")
            #expect(try await scan(paper[1]) == "not_your_turn A003")
            #expect(try await scan(paper[0]) == "admit A001")
            #expect(await kiosk.wait { server.queue(storeID)?.inside == 2 } != nil)
            status = try await server.call("GET", "/v1/tickets/\(bookingID)", token: nil)
            #expect(status.body["stage"] as? String == "admitted")
        } catch {
            await kiosk.stop()
            await server.stop()
            throw error
        }
        await kiosk.stop()
        await server.stop()
    }
}
