import DeviceEmulators
import Foundation
import KioskCore
import ServiceSupport
import Testing

@testable import KioskStation
@testable import Rigs

/// The window display and the manager page as a real browser runs them (headless Chromium through
/// Selenium, Scripts/browser_pages.py): a tear-off at the emulated printer, an admission from the emulated
/// scanner, an exit clicked on the page, and the printer running out of paper all show up live.
@Suite(.serialized) struct PagesInBrowserTests {
    @Test(
        .enabled(
            if: HIL.chromiumReady,
            "needs chromium, chromium-driver and selenium in .venv-test (make test installs them)"
        )
    )
    func displayAndManagerPagesFollowTheKiosk() async throws {
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        let rig = try StationRig(profile: "citizen-ppu-700") {
            $0.store.capacity = 1
            $0.store.name = "Browser Market"
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)"
        }
        let stop = { await rig.stop() }
        try await HIL.inBrowser(then: stop) { browser in
            let port = try #require(rig.kiosk.httpPort.wait())
            let door = try #require(rig.kiosk.door)
            #expect(await browser.next(timeout: .seconds(60)) == "ready")
            try await rig.requireTickets(1)
            #expect(await rig.wait { rig.station.status.state == .ready && door.status.state == "ready" } != nil)
            #expect(await browser.ask("open display http://127.0.0.1:\(port)/display") == "ok")
            #expect(await browser.ask("expect display link live") == "ok")
            #expect(await browser.ask("expect display store Browser Market") == "ok")
            #expect(await browser.ask("expect display waiting 0") == "ok")
            #expect(await browser.ask("open manager http://127.0.0.1:\(port)/") == "ok")
            #expect(await browser.ask("expect manager link live") == "ok")
            #expect(await browser.ask("expect manager printer ticket A001 waiting") == "ok")

            // A001 torn off: the display calls it (the store is empty), the manager page shows A002 waiting.
            await rig.customerTakes()
            let tickets = try await rig.requireTickets(2)
            #expect(await browser.ask("expect display called A001") == "ok")
            // The call is in the last-called list and announced, once, to a screen reader.
            #expect(await browser.ask("expect display recent A001") == "ok")
            #expect(await browser.ask("text display announce") == "ok Number A001, please come to the entrance.")
            #expect(await browser.ask("expect manager next A001") == "ok")
            #expect(await browser.ask("expect manager printer ticket A002 waiting") == "ok")

            // A001 scanned at the door: admitted on the manager page, inside 1 on the display, the store full.
            try scanner.scan(try #require(tickets[0].qrCodes.first))
            #expect(await browser.ask("expect manager decision A001") == "ok")
            #expect(door.status.last?.reason == "admit")
            #expect(await browser.ask("expect manager occupancy 1 / 1") == "ok")
            #expect(await browser.ask("expect display inside 1") == "ok")
            #expect(await browser.ask("expect display called please wait") == "ok")

            // The manager clicks "Someone left" in the browser: the exit is recorded and both pages follow.
            #expect(await browser.ask("click manager exit") == "ok")
            #expect(await rig.wait { door.status.exits == 1 } != nil)
            #expect(await browser.ask("expect manager occupancy 0 / 1") == "ok")
            #expect(await browser.ask("expect display inside 0") == "ok")
            #expect(await browser.ask("expect display called take a ticket") == "ok")
            // A001 is no longer called, but stays on the last-called list; nothing new is announced.
            #expect(await browser.ask("text display recent") == "ok A001")
            #expect(await browser.ask("text display announce") == "ok Number A001, please come to the entrance.")
            // Staff count one inside (someone came in unseen): the page's form, and both pages follow.
            #expect(await browser.ask("click manager l-staff") == "ok")
            #expect(await browser.ask("type manager count-inside 1") == "ok")
            #expect(await browser.ask("click manager count-button") == "ok")
            #expect(await browser.ask("expect manager staffResult Recorded.") == "ok")
            #expect(await browser.ask("expect manager occupancy 1 / 1") == "ok")
            #expect(await browser.ask("expect manager counted 1 counted at") == "ok")
            #expect(await browser.ask("expect display inside 1") == "ok")
            #expect(rig.kiosk.queue.snapshot.correction?.inside == 1)
            // Staff pause the calls for five minutes from the page: both pages say who, why and until when.
            #expect(await browser.ask("type manager pause-reason restock") == "ok")
            #expect(await browser.ask("type manager pause-minutes 5") == "ok")
            #expect(await browser.ask("click manager pause-button") == "ok")
            #expect(await browser.ask("seen manager paused Calls paused by") == "ok")
            #expect(await browser.ask("expect display called Calls paused until") == "ok")
            #expect(await browser.ask("expect display called restock") == "ok")
            #expect(rig.kiosk.queue.snapshot.isPaused(at: WallClock.system.now()))
            // Both pages meet WCAG 2.2 A and AA as axe-core checks them (the manager's with its staff forms open
            // and a pause showing).
            #expect(await browser.ask("axe display", timeout: .seconds(60)) == "ok")
            #expect(await browser.ask("axe manager", timeout: .seconds(60)) == "ok")
            #expect(await browser.ask("click manager resume-button") == "ok")
            #expect(await browser.ask("expect display called please wait") == "ok")  // one inside of one
            #expect(await browser.ask("gone manager paused Calls paused") == "ok")

            // Paper out: the window display warns the street.
            rig.emulator.simulate(.paperEnd(true))
            #expect(await browser.ask("expect display notice out of paper") == "ok")
            rig.emulator.simulate(.paperEnd(false))
            #expect(await browser.ask("gone display notice out of paper") == "ok")
        }
    }

    /// The window display in the store's languages (here the box's `[voice] languages`, as before a kiosk's
    /// first sync; the store's on clup-server replace them, StoreSettingsTests): every label in the main
    /// language with the second beside it, what changes and the announcement in the main one.
    @Test(
        .enabled(
            if: HIL.chromiumReady,
            "needs chromium, chromium-driver and selenium in .venv-test (make test installs them)"
        )
    )
    func theDisplaySpeaksTheStoresLanguages() async throws {
        let rig = try StationRig(profile: "citizen-ppu-700") {
            $0.store.capacity = 1
            $0.store.name = "Mercato"
            $0.voice.languages = [.italian, .english]
        }
        let stop = { await rig.stop() }
        try await HIL.inBrowser(then: stop) { browser in
            let port = try #require(rig.kiosk.httpPort.wait())
            #expect(await browser.next(timeout: .seconds(60)) == "ready")
            try await rig.requireTickets(1)
            #expect(await browser.ask("open display http://127.0.0.1:\(port)/display") == "ok")
            #expect(await browser.ask("expect display link live") == "ok")
            #expect(await browser.ask("text display l-now") == "ok Chiamati ora · Now serving")
            #expect(await browser.ask("text display l-waiting") == "ok In attesa · Waiting")
            #expect(await browser.ask("expect display called prendete un biglietto ed entrate") == "ok")
            #expect(await browser.ask("expect display people persone") == "ok")
            await rig.customerTakes()
            _ = try await rig.requireTickets(2)
            #expect(await browser.ask("expect display called A001") == "ok")
            #expect(
                await browser.ask("text display announce") == "ok Numero A001, si avvicini all'ingresso, per favore."
            )
            #expect(await browser.ask("axe display", timeout: .seconds(60)) == "ok")
            // The manager page speaks the store's main language too.
            #expect(await browser.ask("open manager http://127.0.0.1:\(port)/") == "ok")
            #expect(await browser.ask("expect manager link live") == "ok")
            #expect(await browser.ask("text manager l-inside") == "ok Dentro / capienza")
            #expect(await browser.ask("expect manager printer Stampante: pronto") == "ok")
            #expect(await browser.ask("expect manager scanner Il ruolo di ingresso non è attivo") == "ok")
            // The count form's words too (hidden here: a kiosk without a door has no count to correct).
            #expect(await browser.ask("text manager l-staff") == "ok Conta / fai entrare / sospendi")
            #expect(await browser.ask("text manager count-button") == "ok Imposta il conteggio")
            #expect(await browser.ask("axe manager", timeout: .seconds(60)) == "ok")
        }
    }

    /// A closed store's window display says when it opens in the store's language, not the kiosk's English.
    @Test(.enabled(if: HIL.chromiumReady, "needs chromium, chromium-driver and selenium in .venv-test"))
    func aClosedStoresDisplaySaysWhenItOpensInItsLanguage() async throws {
        let hour =
            (Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).hour! + 2)
            % 24
        let opens = (hour < 10 ? "0" : "") + "\(hour):00"
        let rig = try StationRig(profile: "citizen-ppu-700") {
            $0.store.timeZone = .utc
            // Open for an hour from two hours on, within the day: from 21:00 on, 23:00 opens until 23:59 (a close
            // at midnight would come before its opening, and the test died at that hour every evening).
            $0.store.hours = try! StoreHours.daily(
                open: TimeOfDay(hour: hour, minute: 0),
                close: hour == 23 ? TimeOfDay(hour: 23, minute: 59) : TimeOfDay(hour: hour + 1, minute: 0)
            )
            $0.voice.languages = [.italian, .english]
        }
        let stop = { await rig.stop() }
        try await HIL.inBrowser(then: stop) { browser in
            let port = try #require(rig.kiosk.httpPort.wait())
            #expect(await browser.next(timeout: .seconds(60)) == "ready")
            #expect(await browser.ask("open display http://127.0.0.1:\(port)/display") == "ok")
            #expect(await browser.ask("expect display link live") == "ok")
            #expect(await browser.ask("text display called") == "ok Chiuso — il negozio apre alle \(opens)")
        }
    }

    /// A manager's tablet on the shop's network (issue 45): Chromium opens the manager page by the box's LAN
    /// address, is asked for the manager password before the exit button works, logs in, and the click counts.
    @Test(
        .enabled(
            if: HIL.chromiumReady && HIL.lanAddress != nil,
            "needs chromium, chromium-driver and selenium in .venv-test, and a non-loopback IPv4 address"
        )
    )
    func aTabletLogsInOnTheManagerPage() async throws {
        let lan = try #require(HIL.lanAddress)
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        let rig = try StationRig(profile: "citizen-ppu-700") {
            $0.store.capacity = 2
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)"
            $0.http.host = "0.0.0.0"
            $0.http.serverNames = [lan]
            $0.http.managerPassword = try? PasswordHash(password: "shift manager 7")
        }
        let stop = { await rig.stop() }
        try await HIL.inBrowser(then: stop) { browser in
            let port = try #require(rig.kiosk.httpPort.wait())
            let door = try #require(rig.kiosk.door)
            #expect(await browser.next(timeout: .seconds(60)) == "ready")
            try await rig.requireTickets(1)
            await rig.customerTakes()
            let tickets = try await rig.requireTickets(2)
            #expect(await rig.wait { door.status.state == "ready" } != nil)
            try scanner.scan(try #require(tickets[0].qrCodes.first))
            #expect(await rig.wait { door.status.last?.reason == "admit" } != nil)

            #expect(await browser.ask("open manager http://\(lan):\(port)/") == "ok")
            #expect(await browser.ask("expect manager link live") == "ok")
            #expect(await browser.ask("shown manager login") == "ok")
            #expect(await browser.ask("expect manager exitResult Log in to use the buttons") == "ok")
            #expect(await browser.ask("axe manager", timeout: .seconds(60)) == "ok")
            #expect(await browser.ask("type manager password not it") == "ok")
            #expect(await browser.ask("press manager #login button") == "ok")
            #expect(await browser.ask("expect manager exitResult wrong password") == "ok")
            #expect(door.status.exits == 0)
            #expect(await browser.ask("type manager password shift manager 7") == "ok")
            #expect(await browser.ask("press manager #login button") == "ok")
            #expect(await browser.ask("expect manager exitResult Logged in.") == "ok")
            #expect(await browser.ask("hidden manager login") == "ok")
            #expect(await browser.ask("click manager exit") == "ok")
            #expect(await rig.wait { door.status.exits == 1 } != nil)
            #expect(await browser.ask("expect manager occupancy 0 / 2") == "ok")
            // Logged out (a tablet the next shift picks up): the form is back (the kiosk ending the session on its
            // side: ManagerLoginHostTests).
            #expect(await browser.ask("click manager logout") == "ok")
            #expect(await browser.ask("shown manager login") == "ok")
            #expect(await browser.ask("expect manager exitResult Logged out.") == "ok")
            #expect(await browser.ask("hidden manager logout") == "ok")
        }
    }

    /// A shopper's ticket page, as Chromium runs it, follows the door: two app tickets in a store of one, the
    /// door kiosk (synced, a pty scanner) admits V001 from its QR, and without a reload V001's page turns to
    /// admitted and V002's says nobody is ahead.
    @Test(
        .enabled(
            if: HIL.chromiumReady,
            "needs chromium, chromium-driver and selenium in .venv-test (make test installs them)"
        )
    )
    func theTicketPageFollowsTheDoorLive() async throws {
        let server = try await ServerRig()
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        let storeID = try await server.registerStore(["capacity": 1])
        let credential = try await server.enroll("browser-door", store: storeID)
        var qrs: [String] = []
        for _ in 0..<2 {
            let taken = try await server.call("POST", "/v1/stores/\(storeID.uuidString)/tickets", token: nil)
            qrs.append(try #require(taken.body["qr"] as? String))
        }
        let door = try StationRig(profile: "custom-vkp80iii") {
            $0.store.id = storeID
            $0.store.capacity = 1
            $0.device.id = "browser-door"
            $0.sync.server = server.url
            $0.store.timeZone = .standardStore  // as installed: no day guessed in UTC before the first sync
            $0.store.hours = .standardStore
            $0.sync.credential = credential
            $0.sync.pullWaitSeconds = 5
            $0.printer.enabled = false
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)"
        }
        let stop = {
            await door.stop()
            await server.stop()
        }
        try await HIL.inBrowser(then: stop) { browser in
            let station = try #require(door.kiosk.door)
            #expect(await door.wait(.seconds(10)) { station.keyRing.count == 2 } != nil)
            #expect(await door.wait(.seconds(10)) { door.kiosk.queue.snapshot.waiting.count == 2 } != nil)
            #expect(await browser.next(timeout: .seconds(60)) == "ready")
            func page(_ qr: String) -> String {
                server.url + "/T/" + qr.dropFirst(door.kiosk.config.store.statusURL.count)
            }
            #expect(await browser.ask("open first \(page(qrs[0]))") == "ok")
            #expect(await browser.ask("expect first stage It is your turn") == "ok")
            #expect(await browser.ask("open second \(page(qrs[1]))") == "ok")
            #expect(await browser.ask("expect second ahead 1 person ahead of you") == "ok")

            #expect(try await door.scan(qrs[0], on: scanner) == "admit V001")
            #expect(await browser.ask("expect first stage Admitted") == "ok")
            #expect(await browser.ask("expect second ahead Nobody ahead of you") == "ok")
        }
    }
}
