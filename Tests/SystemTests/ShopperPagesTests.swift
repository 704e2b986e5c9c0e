import CLupServer
import DeviceEmulators
import Foundation
import KioskCore
import ServiceSupport
import Synchronization
import Testing

@testable import KioskStation
@testable import Rigs

/// A shopper's day in the browser, as headless Chromium runs the pages (Scripts/browser_pages.py) against a
/// real clup-server and a real kioskd door on a pty scanner: the QR the page shows is read back from a
/// screenshot by zbarimg (an independent decoder) and scanned at the door, and the page follows the door.
@Suite(.serialized) struct ShopperPagesTests {
    static var ready: Bool { HIL.chromiumReady && HIL.needs("zbarimg") }
    static let skip: Comment =
        "needs chromium, chromium-driver, selenium in .venv-test and zbarimg (make test installs them)"

    /// The QR shown in tab `tab`, as zbarimg reads it from a screenshot of the page's SVG.
    static func qr(in tab: String, _ browser: LineProcess) async throws -> String {
        let png = HIL.temporaryDirectory("qr") + "/qr.png"
        #expect(await browser.ask("shot \(tab) qr \(png)") == "ok")
        return try #require(try HIL.decodeQR(png: png).first, "zbarimg found no QR in the page's picture")
    }

    /// The start page finds the store by town, one tap takes a ticket and opens its page with the QR; the
    /// door admits the QR read from the screen, and the page turns to admitted without a reload. The next
    /// ticket: listed on the start page as this phone's, a second one at the same store refused with the
    /// page's own words, cancelled with one button and its confirmation.
    @Test(.enabled(if: ready, skip))
    func aTicketTakenInThePageIsAdmittedAtTheDoor() async throws {
        let server = try await ServerRig()
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        let storeID = try await server.registerStore(["name": "Mercato Centrale", "address": "Via Roma 1, Milano"])
        _ = try await server.registerStore(
            ["name": "Bottega Torino", "address": "Via Po 2, Torino"],
            manager: "torino"
        )
        let credential = try await server.enroll("door", store: storeID)
        let door = try StationRig(profile: "custom-vkp80iii") {
            $0.syncing(with: server, store: storeID, device: "door", credential: credential, capacity: 2)
            $0.printer.enabled = false
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)"
        }
        func stop() async {
            await door.stop()
            await server.stop()
        }
        try await HIL.inBrowser(then: stop) { browser in
            let station = try #require(door.kiosk.door)
            #expect(await door.wait(.seconds(10)) { station.keyRing.count == 2 } != nil)
            #expect(await browser.next(timeout: .seconds(60)) == "ready")
            #expect(await browser.ask("open shopper \(server.url)/?q=milano") == "ok")
            #expect(await browser.ask("expect shopper stores Mercato Centrale") == "ok")
            #expect(await browser.ask("gone shopper stores Torino") == "ok")
            #expect(await browser.ask("press shopper [data-take]") == "ok")
            #expect(await browser.ask("expect shopper code V001") == "ok")
            #expect(await browser.ask("expect shopper stage It is your turn") == "ok")
            // Called: the page says so where it cannot be missed (an alert region), not only in the stage.
            #expect(await browser.ask("expect shopper notice go to the store's door now") == "ok")
            let payload = try await Self.qr(in: "shopper", browser)
            #expect(payload.hasPrefix(door.kiosk.config.store.statusURL))
            #expect(await door.wait(.seconds(10)) { door.kiosk.queue.snapshot.waiting.count == 1 } != nil)
            #expect(try await door.scan(payload, on: scanner) == "admit V001")
            #expect(await browser.ask("expect shopper stage Admitted") == "ok")
            #expect(await browser.ask("hidden shopper qr") == "ok")

            // The next ticket: the admitted one is no longer this phone's; the new one is, on the start page.
            #expect(await browser.ask("open start \(server.url)/?q=milano") == "ok")
            #expect(await browser.ask("press start [data-take]") == "ok")
            #expect(await browser.ask("expect start code V002") == "ok")
            #expect(await browser.ask("open again \(server.url)/?q=roma") == "ok")
            #expect(await browser.ask("expect again mine V002") == "ok")
            #expect(await browser.ask("gone again mine V001") == "ok")
            // One live ticket per phone per store: the page says so in its own words, nothing is stored.
            #expect(await browser.ask("press again [data-take]") == "ok")
            #expect(await browser.ask("expect again error You already hold a ticket") == "ok")
            #expect(server.queue(storeID)?.entries.count == 2)
            // Cancel: one button, then its confirmation.
            #expect(await browser.ask("press again #mine a") == "ok")
            #expect(await browser.ask("expect again code V002") == "ok")
            #expect(await browser.ask("shown again cancel") == "ok")
            #expect(await browser.ask("press again #cancel") == "ok")
            #expect(await browser.ask("shown again confirm") == "ok")
            #expect(await browser.ask("press again #cancel-yes") == "ok")
            #expect(await browser.ask("expect again stage Cancelled") == "ok")
            let v002 = server.queue(storeID)?.entries.values.first { $0.ticket.code.description == "V002" }
            #expect(v002?.stage == .cancelled)
        }
    }

    /// A visit booked in the page (tomorrow's first slot, a length of stay chosen): its QR, read from the
    /// screen, is refused at the door before the slot and admitted at it, and the page follows.
    @Test(.enabled(if: ready, skip))
    func aSlotBookedInThePageIsAdmittedAtItsTime() async throws {
        let offset = WallClock.Offset()
        let clock = WallClock.shifted(by: offset)
        let server = try await ServerRig(clock: clock)
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        let storeID = try await server.registerStore(
            ["slotMinutes": 30, "slotSize": 1, "openingHours": ServerRig.hours("07:00", "22:00")]
        )
        let credential = try await server.enroll("door", store: storeID)
        let door = try StationRig(profile: "custom-vkp80iii", clock: clock) {
            $0.syncing(with: server, store: storeID, device: "door", credential: credential, capacity: 2)
            $0.printer.enabled = false
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)"
        }
        func stop() async {
            await door.stop()
            await server.stop()
        }
        try await HIL.inBrowser(then: stop) { browser in
            let station = try #require(door.kiosk.door)
            #expect(await door.wait(.seconds(10)) { station.keyRing.count == 2 } != nil)
            #expect(await browser.next(timeout: .seconds(60)) == "ready")
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyy-MM-dd"
            formatter.timeZone = TimeZone(secondsFromGMT: 3600)
            let date = formatter.string(from: Date().addingTimeInterval(86_400))
            let page = "\(server.url)/stores/\(storeID.uuidString.lowercased())/book?date=\(date)"
            #expect(await browser.ask("open book \(page)") == "ok")
            #expect(await browser.ask("expect book slots 07:00–07:30") == "ok")
            #expect(await browser.ask("press book #stay") == "ok")
            #expect(await browser.ask("press book #stay option[value='30']") == "ok")
            #expect(await browser.ask("press book [data-slot]") == "ok")
            #expect(await browser.ask("expect book code B001") == "ok")
            #expect(await browser.ask("expect book stage Booked") == "ok")
            #expect(await browser.ask("expect book visit 07:00–07:30") == "ok")
            let booked = server.queue(storeID)?.entries.values.first { $0.ticket.kind == .booking }
            #expect(booked?.ticket.slot?.expectedVisitMinutes == 30)

            // The slot is now full: the booking page offers the nearest free slots instead.
            #expect(await browser.ask("open full \(page)") == "ok")
            #expect(await browser.ask("expect full slots 07:00–07:30 — Full · nearest free: 07:30–08:00") == "ok")

            let payload = try await Self.qr(in: "book", browser)
            #expect(await door.wait(.seconds(10)) { door.kiosk.queue.snapshot.waiting.count == 1 } != nil)
            #expect(try await door.scan(payload, on: scanner) == "too_early B001")
            let start = try #require(booked?.ticket.slot?.start)
            offset.advance(by: (start + .seconds(30)) - clock.now())
            // The kiosk's clock jumped hours with the server's: until its next sync shows the server's moved too,
            // it believes neither and the door decides nothing (ClockWatch) — a scan then is shown again.
            var said: String?
            for _ in 0..<4 where said == nil { said = try await door.scan(payload, on: scanner) }
            #expect(said == "admit B001")
            #expect(await browser.ask("expect book stage Admitted") == "ok")
        }
    }

    /// A paper ticket printed by kioskd, its QR read by zbarimg from the emulator's picture of the ticket,
    /// opened in the browser (the status URL is this server's): the page shows its place and follows the
    /// tear-off and the door.
    @Test(.enabled(if: ready, skip))
    func aPaperTicketsURLShowsItsPlaceLive() async throws {
        let probe = try await ServerRig()
        let port = probe.port
        await probe.stop()
        let statusURL = "HTTP://127.0.0.1:\(port)/T/"
        let server = try await ServerRig(port: port, statusURL: statusURL)
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        let storeID = try await server.registerStore(["name": "Paper Market", "capacity": 1])
        let credential = try await server.enroll("kiosk", store: storeID)
        let kiosk = try StationRig(profile: "custom-vkp80iii") {
            $0.syncing(with: server, store: storeID, device: "kiosk", credential: credential, capacity: 1)
            $0.store.statusURL = statusURL
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)"
        }
        func stop() async {
            await kiosk.stop()
            await server.stop()
        }
        try await HIL.inBrowser(then: stop) { browser in
            #expect(await browser.next(timeout: .seconds(60)) == "ready")
            var printed = try await kiosk.requireTickets(1)
            await kiosk.customerTakes()
            printed = try await kiosk.requireTickets(2)
            var urls: [String] = []
            for ticket in printed {
                let png = try #require(ticket.pngPath)
                urls.append(try #require(try HIL.decodeQR(png: png).first))
            }
            #expect(urls.allSatisfy { $0.hasPrefix(statusURL) })
            #expect(await kiosk.wait { server.queue(storeID)?.entries.count == 2 } != nil)
            #expect(await browser.ask("open first \(urls[0])") == "ok")
            #expect(await browser.ask("expect first code A001") == "ok")
            #expect(await browser.ask("expect first stage It is your turn") == "ok")
            #expect(await browser.ask("open second \(urls[1])") == "ok")
            #expect(await browser.ask("expect second stage Printed") == "ok")
            // A002 torn off: its page shows it waiting behind A001, live.
            await kiosk.customerTakes()
            #expect(await browser.ask("expect second ahead 1 person ahead of you") == "ok")
            // Its wait, written by the page's script from the stream (the page was printed: no wait then),
            // with the range the printed ticket shows too.
            #expect(await browser.ask("expect second minutes min (") == "ok")
            #expect(await browser.ask("seen second range-note 8 times in 10") == "ok")
            #expect(await browser.ask("expect second notice Get ready: you are next") == "ok")
            #expect(try await kiosk.scan(urls[0], on: scanner) == "admit A001")
            #expect(await browser.ask("expect first stage Admitted") == "ok")
            #expect(await browser.ask("expect second ahead Nobody ahead of you") == "ok")
        }
    }

    /// Strangers who saw a ticket's QR hold all four of its stream places: a page opened elsewhere is refused a
    /// stream (429, and EventSource does not retry) and follows the ticket by asking every 10 s instead — it
    /// still learns that the ticket was cancelled.
    @Test(.enabled(if: ready, skip))
    func aPageRefusedAStreamFollowsItsTicketByAsking() async throws {
        let server = try await ServerRig(limits: PublicLimits())
        let store = try await server.registerStore(["capacity": 1])
        _ = try await server.call("POST", "/v1/stores/\(store.uuidString)/tickets", token: nil)
        let taken = try await server.call("POST", "/v1/stores/\(store.uuidString)/tickets", token: nil)
        let id = try #require((taken.body["ticket"] as? [String: Any])?["id"] as? String)
        let holder = try #require(taken.body["holderToken"] as? String)
        let qr = try #require(taken.body["qr"] as? String)
        var strangers: [EventStreamClient] = []
        for _ in 0..<4 {
            let stream = try EventStreamClient(port: server.port, path: "/v1/tickets/\(id)/events")
            #expect(await stream.next() != nil)
            strangers.append(stream)
        }
        func stop() async {
            withExtendedLifetime(strangers) {}
            await server.stop()
        }
        try await HIL.inBrowser(then: stop) { browser in
            #expect(await browser.next(timeout: .seconds(60)) == "ready")
            let page = server.url + "/T/" + qr.dropFirst("HTTPS://CLUP.EXAMPLE/T/".count)
            #expect(await browser.ask("open seen \(page)") == "ok")
            #expect(await browser.ask("expect seen stage Waiting") == "ok")
            let cancelled = try await server.call(
                "DELETE",
                "/v1/tickets/\(id)",
                token: nil,
                headers: ["Clup-Holder": holder]
            )
            #expect(cancelled.status == 200)
            #expect(await browser.ask("expect seen stage Cancelled") == "ok")
        }
    }

    /// Point 1 of the second attack round: while a thousand addresses ask for tickets without paying the work
    /// (or replaying one proof), a shopper's page takes its ticket — its script solves the store's challenge
    /// unnoticed — and the flood took none (before the work, five addresses spent the store's burst and the
    /// shopper got 429). `make bench ONLY=flood` measures how long the shopper waits.
    @Test(.enabled(if: ready, skip))
    func aShopperTakesATicketWhileAThousandAddressesFlood() async throws {
        let python = try #require(HIL.python)
        let server = try await ServerRig(limits: PublicLimits(), trustedProxies: [CIDR("127.0.0.1")!])
        let store = try await server.registerStore(["name": "Mercato Centrale", "address": "Via Roma 1, Milano"])
        let tickets = "/v1/stores/\(store.uuidString)/tickets"
        let replayed = try #require(try await server.work(for: tickets))
        let running = Running()
        let flood = Task {
            try await withThrowingTaskGroup(of: [Int].self) { group in
                for worker in 0..<16 {
                    group.addTask {
                        var statuses: [Int] = []
                        var i = worker
                        while running.flag.load(ordering: .relaxed) {
                            var headers = ["X-Forwarded-For": "198.18.\(i % 1000 / 250).\(i % 250 + 1)"]
                            if i % 2 == 1 { headers["Clup-Work"] = replayed }
                            statuses.append(
                                try await server.call("POST", tickets, token: nil, headers: headers, paying: false)
                                    .status
                            )
                            i += 16
                        }
                        return statuses
                    }
                }
                return try await group.reduce(into: [Int]()) { $0 += $1 }
            }
        }
        let browser = try LineProcess(python, ["\(HIL.packageRoot)/Scripts/browser_pages.py"])
        do {
            #expect(await browser.next(timeout: .seconds(60)) == "ready")
            #expect(await browser.ask("open shopper \(server.url)/?q=milano") == "ok")
            let pressed = ContinuousClock.now
            #expect(await browser.ask("press shopper [data-take]") == "ok")
            #expect(await browser.ask("expect shopper code V00") == "ok")
            let took = ContinuousClock.now - pressed
            running.flag.store(false, ordering: .relaxed)
            let statuses = try await flood.value
            let fakes = statuses.count(where: { $0 == 201 })
            print("a shopper took a ticket in \(took) while the flood sent \(statuses.count) requests; \(fakes) taken")
            #expect(statuses.count >= 100, "the flood ran")
            #expect(fakes <= 1, "only the replayed proof's first use may count")
            #expect(statuses.allSatisfy { $0 == 201 || $0 == 428 })
            // The shopper's ticket is the store's only other one: the flood spent nothing of its budget.
            #expect(server.queue(store)?.waiting.count == fakes + 1)
            _ = await browser.ask("quit", timeout: .seconds(1))
            _ = await browser.waitForExit(timeout: .seconds(20))
        } catch {
            running.flag.store(false, ordering: .relaxed)
            _ = try? await flood.value
            browser.process.terminate()
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Whether a test's background load is still to run (it ends its requests in flight and stops).
    final class Running: Sendable {
        let flag = Atomic(true)
    }
}
