import Foundation
import KioskCore
import Testing

@testable import Rigs

/// The ticket page's journey in headless Chromium: the shopper says how they come, the page works the minutes
/// out from the browser's position (DevTools sets it) and the store's, sends only the minutes, and says when to
/// leave — "leave now" once that time has come — live, in a status region, and passes axe's WCAG 2.2 AA checks.
@Suite(.serialized) struct LeaveByPageTests {
    /// The page's documented trip: the great-circle distance × 1.3 at 4.5 km/h on foot, rounded up (worked out
    /// here on its own, to check the page's script).
    static func minutesOnFoot(from a: (Double, Double), to b: (Double, Double)) -> Int {
        let r = Double.pi / 180
        let h =
            pow(sin((b.0 - a.0) * r / 2), 2) + cos(a.0 * r) * cos(b.0 * r) * pow(sin((b.1 - a.1) * r / 2), 2)
        let km = 2 * 6371 * asin(min(1, h.squareRoot())) * 1.3
        return Int((km / 4.5 * 60).rounded(.up))
    }

    @Test(
        .enabled(if: PagesTourTests.axeReady, "needs chromium, chromium-driver and axe-playwright-python (make test)")
    )
    func thePageSaysWhenToLeaveFromWhereTheShopperIs() async throws {
        let python = try #require(HIL.python)
        let server = try await ServerRig()
        let browser = try LineProcess(python, ["\(HIL.packageRoot)/Scripts/browser_pages.py"])
        do {
            let store = (45.472, 9.187)
            let here = (45.4642, 9.1900)
            let id = try await server.registerStore([
                "name": "Bottega di Brera", "capacity": 1,
                "location": ["latitude": store.0, "longitude": store.1],
            ])
            var taken: [[String: Any]] = []
            for _ in 0..<6 {
                taken.append(try await server.call("POST", "/v1/stores/\(id.uuidString)/tickets", token: nil).body)
            }
            let qr = try #require(taken.last?["qr"] as? String)
            let url = server.url + "/T/" + qr.dropFirst("HTTPS://CLUP.EXAMPLE/T/".count)
            #expect(await browser.next(timeout: .seconds(60)) == "ready")
            await HIL.ok(browser, "open t \(url)")
            await HIL.ok(browser, "expect t ahead 5 people ahead of you")
            await HIL.ok(browser, "seen t journey-modes On foot")
            #expect(await browser.ask("text t leave") == "ok ", "nothing said before a journey")
            // On foot from ~1 km away: the minutes the documented rule gives, and a time to leave.
            let minutes = Self.minutesOnFoot(from: here, to: store)
            #expect((10...25).contains(minutes), "\(minutes)")
            await HIL.ok(browser, "locate t \(here.0) \(here.1)")
            _ = await browser.ask("requests t")
            await HIL.ok(browser, "press t [data-mode=foot]")
            await HIL.ok(browser, "expect t leave your trip takes \(minutes) min.")
            await HIL.ok(browser, "seen t leave Leave at ")
            #expect(await browser.ask("text t journey-minutes") != nil)
            // Only the minutes went out: no request carries the position.
            let sent = try #require(await browser.ask("requests t")).dropFirst(3)
            let urls = try #require(try JSONSerialization.jsonObject(with: Data(sent.utf8)) as? [String])
            #expect(urls.contains { $0.contains("journeyMinutes=\(minutes)") }, "\(urls)")
            #expect(!urls.contains { $0.contains("45.46") || $0.contains("9.19") || $0.contains("lat=") }, "\(urls)")
            #expect(await browser.ask("axe t", timeout: .seconds(60)) == "ok")
            // Four hours away: leave now, said in the status region.
            await HIL.ok(browser, "type t journey-minutes 240")
            await HIL.ok(browser, "press t #journey button[type=submit]")
            await HIL.ok(browser, "expect t leave Leave now")
            // A bad journey is said, and nothing is sent.
            await HIL.ok(browser, "type t journey-minutes 0")
            await HIL.ok(browser, "submit t journey")
            await HIL.ok(browser, "seen t error Give your trip as whole minutes")
            // Reloaded, the page remembers the journey (this device's storage); once the ticket is called the
            // journey box goes.
            await HIL.ok(browser, "open t \(url)")
            await HIL.ok(browser, "expect t leave Leave now")
            let ids = try taken.dropLast().map { try #require(($0["ticket"] as? [String: Any])?["id"] as? String) }
            for (ticket, body) in zip(ids, taken) {
                let holder = try #require(body["holderToken"] as? String)
                let cancelled = try await server.call(
                    "DELETE",
                    "/v1/tickets/\(ticket)",
                    token: nil,
                    headers: ["Clup-Holder": holder]
                )
                #expect(cancelled.status == 200)
            }
            await HIL.ok(browser, "expect t stage It is your turn")
            await HIL.ok(browser, "hidden t journey-box")
            _ = await browser.ask("quit", timeout: .seconds(1))
            _ = await browser.waitForExit(timeout: .seconds(20))
        } catch {
            browser.process.terminate()
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
