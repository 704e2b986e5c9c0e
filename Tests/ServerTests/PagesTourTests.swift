import Foundation
import KioskCore
import SyncWire
import Testing

@testable import Rigs

/// Every page, in English and Italian, checked by a real accessibility checker in Chromium (axe-core 4.12, the
/// copy PyPI's axe-playwright-python carries, with its WCAG 2.0, 2.1 and 2.2 A and AA rules, target size
/// among them): no violation of any impact. With
/// `CLUP_SCREENSHOTS=<directory>` (`make screenshots`) the tour also saves docs/web-app.md's pictures (English):
/// the shopper pages phone-sized, the console desktop-sized.
@Suite(.serialized) struct PagesTourTests {
    static var axeReady: Bool {
        guard HIL.chromiumReady, let python = HIL.python else { return false }
        return HIL.strict || (try? HIL.run(python, ["-c", Self.axeFound]).status) == 0
    }

    /// Whether axe-playwright-python (its axe.min.js) is in the test Python, without importing its Playwright.
    static let axeFound = "import importlib.util as u; exit(u.find_spec('axe_playwright_python') is None)"

    @Test(.enabled(if: axeReady, "needs chromium, chromium-driver and axe-playwright-python in .venv-test (make test)"))
    func everyPageIsAccessibleInBothLanguages() async throws {
        let shots = ProcessInfo.processInfo.environment["CLUP_SCREENSHOTS"]
        let server = try await ServerRig()
        func stop() async {
            await server.stop()
        }
        try await HIL.inBrowser(then: stop) { browser in
            let store = try await server.registerStore(
                ["name": "Mercato Centrale", "address": "Via Roma 1, Milano", "capacity": 2, "slotSize": 2],
                manager: "giulia"
            )
            let brera = try await server.registerStore(
                [
                    "name": "Bottega di Brera", "address": "Via Fiori Chiari 8, Milano",
                    "location": ["latitude": 45.472, "longitude": 9.187],
                ],
                manager: "marco"
            )
            // Two kiosks that called in, for the fleet page: one with a slow clock and paper running low, one
            // on an older kioskd.
            let entrance = try await server.enroll("entrance", store: store)
            let door = try await server.enroll("door", store: brera, role: .door)
            let now = server.app.logs.clock.now().milliseconds
            let reports: [(String, String, [String: Any])] = [
                (
                    entrance, "\(SyncProtocol.current)",
                    [
                        "version": "0.1.340", "printer": "ready", "ticketsLeft": 30, "pendingEvents": 0,
                        "quarantined": 1, "newerEvents": 0, "clock": now - 75_000,
                    ]
                ),
                (door, "1", ["version": "0.1.300", "door": "ready", "pendingEvents": 2]),
            ]
            for (credential, spoken, health) in reports {
                let put = try await server.call(
                    "PUT",
                    "/v1/devices/self/health",
                    token: credential,
                    json: health,
                    headers: [SyncProtocol.header: spoken]
                )
                #expect(put.status == 204)
            }
            var codes: [String] = []
            for _ in 0..<4 {
                let taken = try await server.call("POST", "/v1/stores/\(store.uuidString)/tickets", token: nil)
                codes.append(
                    String(try #require(taken.body["qr"] as? String).dropFirst("HTTPS://CLUP.EXAMPLE/T/".count))
                )
            }
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyy-MM-dd"
            formatter.timeZone = TimeZone(secondsFromGMT: 3600)
            let tomorrow = formatter.string(from: Date().addingTimeInterval(86_400))
            let id = store.uuidString.lowercased()
            let url = server.url
            #expect(await browser.next(timeout: .seconds(60)) == "ready")

            // (path, screenshot name, phone-sized)
            let shopper: [(String, String?, Bool)] = [
                ("/", nil, true), ("/?q=milano", "start", true), ("/stores/\(id)/book?date=\(tomorrow)", "book", true),
                ("/T/\(codes[3])?journeyMinutes=5", "ticket", true), ("/T/HELLO", nil, true),
            ]
            for (path, shot, phone) in shopper {
                try await visit(url + path, browser, shot: shot.map { ($0, phone) }, into: shots)
            }
            // Three counts by staff: the store's page names who counted last and asks to check the exit's sensors.
            for inside in [1, 2, 1] {
                let counted = try await server.call(
                    "POST",
                    "/v1/stores/\(store.uuidString)/count",
                    json: ["inside": inside]
                )
                #expect(counted.status == 200)
            }
            // Staff pause the calls: the ticket's page says so in both languages, and the store's page below offers
            // to resume.
            let paused = try await server.call(
                "POST",
                "/v1/stores/\(store.uuidString)/pause",
                json: ["reason": "restock", "minutes": 20]
            )
            #expect(paused.status == 200, "\(paused)")
            try await visit(url + "/T/\(codes[3])", browser, shot: nil, into: shots)
            await HIL.ok(browser, "expect tour-it notice Le chiamate sono sospese fino alle")
            // The manager's console: log in, then its pages.
            await HIL.ok(browser, "open console \(url)/console/login")
            try await check(browser, "console", url + "/console/login")
            await HIL.ok(browser, "open login \(url)/console/login")
            await HIL.ok(browser, "type login username giulia")
            await HIL.ok(browser, "type login password correct horse battery")
            await HIL.ok(browser, "press login #login")
            await HIL.ok(browser, "expect login live-title Now")
            try await visit(url + "/console/stores/\(id)", browser, shot: ("console", false), into: shots)
            await HIL.ok(browser, "expect tour-en paused Calls paused by admin until")
            // Resumed elsewhere: the open page follows live — the notice goes, the pause form comes back.
            let resumed = try await server.call("POST", "/v1/stores/\(store.uuidString)/resume", json: [:])
            #expect(resumed.status == 200 && resumed.body["paused"] as? Bool == false, "\(resumed)")
            await HIL.ok(browser, "gone tour-en paused Calls paused")
            await HIL.ok(browser, "seen tour-en pause-controls Pause the calls")
            await HIL.ok(browser, "press login #logout")
            await HIL.ok(browser, "press login #admin summary")
            await HIL.ok(browser, "type login token \(ServerRig.adminToken)")
            await HIL.ok(browser, "press login #admin-login")
            await HIL.ok(browser, "expect login stores Bottega di Brera")
            try await visit(url + "/console/stores", browser, shot: ("admin", false), into: shots)
            try await visit(url + "/console/fleet", browser, shot: ("fleet", false), into: shots)
            // Pairing: the empty form (and the door's offer form), then a box waiting with its printed code.
            try await visit(url + "/console/pair", browser, shot: nil, into: shots)
            let asked = try await server.call(
                "POST",
                "/v1/pairing",
                token: nil,
                json: ["device": "entrance-2", "role": "printer"]
            )
            let code = try #require(asked.body["userCode"] as? String, "\(asked)")
            try await visit(url + "/console/pair?code=\(code)", browser, shot: ("pair", false), into: shots)
        }
    }

    /// Opens `url` in both languages and checks each with axe; saves its screenshot when asked.
    private func visit(
        _ url: String,
        _ browser: LineProcess,
        shot: (String, Bool)?,
        into directory: String?
    )
        async throws
    {
        let separator = url.contains("?") ? "&" : "?"
        for language in ["en", "it"] {
            let tab = "tour-\(language)"
            await HIL.ok(browser, "open \(tab) \(url)\(separator)lang=\(language)")
            try await check(browser, tab, url)
            if let (name, phone) = shot, let directory, language == "en" {
                let size = phone ? "390 844" : "1280 900"
                await HIL.ok(browser, "page \(tab) \(size) \(directory)/\(name)-\(language).png")
            }
        }
    }

    private func check(_ browser: LineProcess, _ tab: String, _ url: String) async throws {
        let answer = await browser.ask("axe \(tab)", timeout: .seconds(60))
        #expect(answer == "ok", "\(url): \(answer ?? "no answer")")
    }
}
