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
        let server = try await ServerRig()
        func stop() async {
            await server.stop()
        }
        try await HIL.inBrowser(then: stop) { browser in
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
            // Called: the box stays and says until when the call lasts — the store's window, as this browser did
            // not take the ticket and so tells the server nothing.
            await HIL.ok(browser, "seen t leave Leave now — your call lasts until ")
            #expect(server.queue(id)?.journeys == HolderJourneys())
        }
    }

    /// The phone that took the ticket, called at once (free places), tells the server its trip: the call then
    /// lasts the trip and its margin, and the page says until when.
    @Test(.enabled(if: HIL.chromiumReady, "needs chromium, chromium-driver and selenium in .venv-test (make test)"))
    func aCalledHolderOnItsWayKeepsItsCallForItsTrip() async throws {
        let server = try await ServerRig()
        func stop() async {
            await server.stop()
        }
        try await HIL.inBrowser(then: stop) { browser in
            let store = try await server.registerStore(["name": "Mercato Centrale", "address": "Via Roma 1, Milano"])
            #expect(await browser.next(timeout: .seconds(60)) == "ready")
            await HIL.ok(browser, "open t \(server.url)/?q=milano")
            await HIL.ok(browser, "press t [data-take]")
            await HIL.ok(browser, "expect t code V001")
            await HIL.ok(browser, "expect t stage It is your turn")
            await HIL.ok(browser, "seen t leave Leave now — your call lasts until ")
            let before = try #require(await browser.ask("text t leave"))
            _ = await browser.ask("requests t")
            await HIL.ok(browser, "type t journey-minutes 25")
            await HIL.ok(browser, "press t #journey button[type=submit]")
            for _ in 0..<100 where server.queue(store)?.journeys == HolderJourneys() {
                try? await Task.sleep(for: .milliseconds(100))
            }
            await HIL.ok(browser, "gone t leave \(before.dropFirst(3))")
            await HIL.ok(browser, "seen t leave Leave now — your call lasts until ")
            let sent = try #require(await browser.ask("requests t")).dropFirst(3)
            let urls = try #require(try JSONSerialization.jsonObject(with: Data(sent.utf8)) as? [String])
            #expect(urls.filter { $0.hasSuffix("/journey") }.count == 1, "\(urls)")
            // The window the store's log now holds for the ticket: the trip and 2 minutes from the telling.
            let state = try #require(server.queue(store))
            let ticket = try #require(state.called(at: PauseTests.now()).first)
            #expect(state.journeys[ticket.id] == 25)
            let called = try #require(state.callTime(of: ticket.id, at: PauseTests.now()))
            let window = state.callWindow(of: ticket.id, calledAt: called, policy: AdmissionPolicy())
            #expect(window > .seconds(27 * 60) && window < .seconds(28 * 60), "told a few seconds after: \(window)")
            // Reloaded, the page does not tell it again.
            await HIL.ok(browser, "open t \(try #require(await browser.ask("url t")).dropFirst(3))")
            await HIL.ok(browser, "seen t leave Leave now — your call lasts until ")
            #expect(server.queue(store)?.journeys.times(ticket.id) == 1)
        }
    }
}
