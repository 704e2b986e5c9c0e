import DeviceEmulators
import Foundation
import KioskCore
import ServiceSupport
import Testing

@testable import KioskStation
@testable import Rigs

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The console as the system manager and a store manager use it, in headless Chromium against a real
/// clup-server and a real kioskd door: the store registered from the admin page, the manager logs in,
/// enrolls a kiosk and starts kioskd with the snippet the page shows, sees it call in, raises the capacity
/// and sees the door follow, corrects the count and sees the door count on from it; a form with bad input says
/// so and stores nothing; an ended session sends the
/// browser to the login page with a note.
@Suite(.serialized) struct ConsolePagesTests {
    @Test(.enabled(if: HIL.chromiumReady, ShopperPagesTests.skip))
    func aManagerEnrollsAKioskAndItsDoorFollowsTheCapacity() async throws {
        let offset = WallClock.Offset()
        let clock = WallClock.shifted(by: offset)
        let server = try await ServerRig(clock: clock)
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        var door: StationRig?
        func stop() async {
            await door?.stop()
            await server.stop()
        }
        try await HIL.inBrowser(then: stop) { browser in
            #expect(await browser.next(timeout: .seconds(60)) == "ready")
            // The system manager registers the store from the admin page.
            await HIL.ok(browser, "open console \(server.url)/console")
            await HIL.ok(browser, "press console #admin summary")
            await HIL.ok(browser, "type console token \(ServerRig.adminToken)")
            await HIL.ok(browser, "press console #admin-login")
            for (field, value) in [
                ("name", "Console Market"), ("address", "Via Dante 5, Milano"), ("latitude", "45.466"),
                ("longitude", "9.186"), ("capacity", "1"), ("timeZone", "Europe/Rome"), ("manager", "giulia"),
            ] {
                await HIL.ok(browser, "type console \(field == "timeZone" ? "zone" : field) \(value)")
            }
            // Bad input first: a password too short is named, nothing is stored.
            await HIL.ok(browser, "type console manager-password short")
            await HIL.ok(browser, "submit console register")
            await HIL.ok(browser, "expect console problem manager.password")
            #expect(server.app.logs.all.isEmpty)
            await HIL.ok(browser, "type console manager-password correct horse battery")
            await HIL.ok(browser, "press console #register-button")
            await HIL.ok(browser, "expect console notice Console Market registered")
            let store = try #require(server.app.logs.all.first?.record.id)
            // Open round the clock, so that its door admits whatever the hour the test runs at (the form's
            // hours are 08:00–20:00; the settings form's own test is below).
            let allDay = try await server.call(
                "PATCH",
                "/v1/stores/\(store.uuidString)",
                json: ["openingHours": ServerRig.hours("00:00", "24:00")]
            )
            #expect(allDay.status == 200)
            await HIL.ok(browser, "press console #logout")

            // The manager logs in: a wrong password is refused with the page's words, then the right one.
            await HIL.ok(browser, "type console username giulia")
            await HIL.ok(browser, "type console password wrong password")
            await HIL.ok(browser, "press console #login")
            await HIL.ok(browser, "expect console notice Wrong user name")
            await HIL.ok(browser, "type console username giulia")
            await HIL.ok(browser, "type console password correct horse battery")
            await HIL.ok(browser, "press console #login")
            await HIL.ok(browser, "expect console live-title Now")

            // A kiosk id with a space is refused by the server (the page's own check bypassed).
            await HIL.ok(browser, "type console device door 1")
            await HIL.ok(browser, "submit console enroll-form")
            await HIL.ok(browser, "expect console problem device")
            #expect(try await server.app.database.devices(store: store).isEmpty)
            // Enrolled: the credential once, and the snippet for kioskd.toml.
            await HIL.ok(browser, "type console device door-1")
            await HIL.ok(browser, "press console #enroll")
            await HIL.ok(browser, "expect console enrolled door-1 enrolled")
            let credential = try Self.json(await browser.ask("json console credential"))
            let snippet = try Self.json(await browser.ask("json console snippet"))
            let credentialFile = HIL.temporaryDirectory("credential") + "/credential"
            try credential.write(toFile: credentialFile, atomically: true, encoding: .utf8)
            #expect(chmod(credentialFile, 0o600) == 0)
            let pasted = try KioskConfig.parse(
                snippet.replacingOccurrences(of: "/etc/kioskd/credential", with: credentialFile),
                file: "kioskd.toml"
            )
            #expect(pasted.store.id == store && pasted.device.id == "door-1" && pasted.store.capacity == 1)
            // Both roles (the form's default): the printer's and the door's sections, to fill in on the box.
            #expect(pasted.printer.enabled && pasted.printer.address == "usb://", "\(snippet)")
            #expect(pasted.door.enabled && pasted.door.scanner == "serial:///dev/ttyACM0", "\(snippet)")
            door = try StationRig(profile: "custom-vkp80iii", clock: clock) {
                $0.store = pasted.store
                $0.device.id = pasted.device.id
                $0.sync = pasted.sync
                $0.sync.pullWaitSeconds = 5
                $0.printer.enabled = false
                $0.door.enabled = true
                $0.door.scanner = "serial://\(scanner.path)"
            }
            let rig = try #require(door)
            // It appears: its last contact, live on the page.
            await HIL.ok(browser, "expect console kiosk-door-1 s ago")

            // Two app tickets in a store of one: V001 admitted, V002 refused — the store is full.
            var qrs: [String] = []
            for _ in 0..<2 {
                let taken = try await server.call("POST", "/v1/stores/\(store.uuidString)/tickets", token: nil)
                qrs.append(try #require(taken.body["qr"] as? String))
            }
            let station = try #require(rig.kiosk.door)
            #expect(await rig.wait(.seconds(10)) { station.keyRing.count == 2 } != nil)
            #expect(await rig.wait(.seconds(10)) { rig.kiosk.queue.snapshot.waiting.count == 2 } != nil)
            let first = try await rig.scan(qrs[0], on: scanner)
            #expect(first == "admit V001")
            await HIL.ok(browser, "expect console inside 1")
            #expect(try await rig.scan(qrs[1], on: scanner) == "store_full V002")
            // Bad settings are named and change nothing; then capacity 2, and the door follows.
            await HIL.ok(browser, "type console capacity-input 0")
            await HIL.ok(browser, "submit console settings")
            await HIL.ok(browser, "expect console problem capacity")
            await HIL.ok(browser, "type console slot-size 5")
            await HIL.ok(browser, "type console capacity-input 2")
            await HIL.ok(browser, "press console #save")
            await HIL.ok(browser, "expect console problem slotSize")
            #expect(server.queue(store)?.capacity == 1)
            await HIL.ok(browser, "type console slot-size 1")
            await HIL.ok(browser, "type console capacity-input 2")
            await HIL.ok(browser, "press console #save")
            await HIL.ok(browser, "expect console notice Settings saved")
            await HIL.ok(browser, "expect console capacity 2")
            #expect(await rig.wait(.seconds(10)) { rig.kiosk.queue.snapshot.capacity == 2 } != nil)
            #expect(try await rig.scan(qrs[1], on: scanner) == "admit V002")
            await HIL.ok(browser, "expect console inside 2")
            await HIL.ok(browser, "expect console waiting-count 0")
            // The day's figures and events, through the API as the console's page and CSV link show them.
            let session = try await server.call(
                "POST",
                "/v1/login",
                token: nil,
                json: ["username": "giulia", "password": "correct horse battery"]
            )
            let token = try #require(session.body["token"] as? String)
            let report = try await server.call("GET", "/v1/stores/\(store.uuidString)/report", token: token)
            #expect(report.body["app"] as? Int == 2 && report.body["admitted"] as? Int == 2, "\(report.body)")
            #expect(report.body["refusedScans"] as? Int == 1 && report.body["peakInside"] as? Int == 2)
            #expect((report.body["joinedByHour"] as? [Int])?.reduce(0, +) == 2)
            // Both were told a wait when taken and both were called: the day's accuracy counts them.
            let accuracy = report.body["estimateAccuracy"] as? [String: Any]
            #expect(accuracy?["scored"] as? Int == 2, "\(report.body)")
            // V001, called at once, was told 0 minutes and no range: the range's share is V002's alone.
            #expect(accuracy?["ranged"] as? Int == 1 && accuracy?["rangeCoverage"] as? Double == 1, "\(report.body)")
            var request = URLRequest(url: URL(string: "\(server.url)/v1/stores/\(store.uuidString)/export")!)
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            let csv = String(decoding: try await URLSession.shared.data(for: request).0, as: UTF8.self)
            let rows: [[String]] = csv.split(separator: "\r\n").map { line in
                line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            }
            func row(_ event: String, code: String, detail: String) -> Bool {
                rows.contains { $0.count == 9 && $0[4] == event && $0[6] == code && $0[8] == detail }
            }
            #expect(rows.first?.joined(separator: ",") == EventCSVHeader.text)
            #expect(row("ticketAdmitted", code: "V002", detail: "door door-1"))
            #expect(row("capacityChanged", code: "", detail: "capacity 2"))
            #expect(row("scanRefused", code: "V002", detail: "store_full at door door-1"))
            // What V001 was told and how long it waited: called at once, so "waited 0 s".
            #expect(
                rows.contains { row in
                    row.count == 9 && row[4] == "ticketIssued" && row[6] == "V001" && row[8].hasPrefix("told ")
                        && row[8].hasSuffix(" waited 0 s")
                },
                "\(csv)"
            )
            await HIL.ok(browser, "open figures \(server.url)/console/stores/\(store.uuidString.lowercased())")
            await HIL.ok(browser, "expect figures admitted 2")
            await HIL.ok(browser, "expect figures in-range 100 % of 1 told a range (meant to be 80 %)")

            // Staff counted 5 inside (the door missed three): the console's form, in giulia's name, and the
            // door counts on from it after its next sync.
            await HIL.ok(browser, "open console \(server.url)/console/stores/\(store.uuidString.lowercased())")
            await HIL.ok(browser, "press console #count-controls summary")
            await HIL.ok(browser, "type console count-inside 5")
            await HIL.ok(browser, "press console #count-button")
            await HIL.ok(browser, "expect console notice Count set: 5 inside.")
            await HIL.ok(browser, "expect console inside 5")
            #expect(await rig.wait(.seconds(10)) { rig.kiosk.queue.snapshot.inside == 5 } != nil)
            #expect(rig.kiosk.queue.snapshot.correction?.by == "giulia")

            // The session ends (13 hours later): the next action lands on the login page with a note, and
            // nothing was changed.
            offset.advance(by: .seconds(13 * 3600))
            await HIL.ok(browser, "type console capacity-input 3")
            await HIL.ok(browser, "press console #save")
            await HIL.ok(browser, "expect console notice Your session ended")
            #expect(server.queue(store)?.capacity == 2)
            // Logging in again leads back to the store's page.
            await HIL.ok(browser, "type console username giulia")
            await HIL.ok(browser, "type console password correct horse battery")
            await HIL.ok(browser, "press console #login")
            await HIL.ok(browser, "expect console live-title Now")
            await HIL.ok(browser, "expect console capacity 2")
        }
    }

    /// The export's header row, as documented.
    enum EventCSVHeader {
        static let text = "sequence,time_utc,local_time,device,event,ticket,code,kind,detail"
    }

    /// The text of a `json` answer (`ok "<JSON string>"`).
    static func json(_ answer: String?) throws -> String {
        let text = try #require(answer?.hasPrefix("ok ") == true ? answer?.dropFirst(3) : nil, "\(answer ?? "nil")")
        return try #require(try JSONDecoder().decode(String?.self, from: Data(text.utf8)))
    }
}
