import Foundation
import KioskCore
import Testing

@testable import Rigs

/// The ticket page's Web Push in headless Chromium: with notifications allowed, the page of the device that took
/// the ticket registers the service worker, which shows what the server pushes — delivered here through
/// DevTools (`ServiceWorker.deliverPushMessage`), as a push service would — as a notification with the notice's
/// title and text, one per ticket (a later notice replaces the one shown). No push service answers in this
/// sandbox, so the browser's subscription itself fails here and the page keeps its own notices; the server's
/// side of a subscription is WebPushTests'.
@Suite(.serialized) struct PushPageTests {
    /// The notifications shown, once one shows `text` (or after 10 s, or at the browser's first failure).
    static func notifications(_ browser: LineProcess, showing text: String) async -> String? {
        var shown: String?
        for _ in 0..<50 {
            shown = await browser.ask("notifications t", timeout: .seconds(20))
            if shown?.contains(text) == true || shown?.hasPrefix("ok") != true { break }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return shown
    }

    @Test(.enabled(if: HIL.chromiumReady, "needs chromium, chromium-driver and selenium in .venv-test (make test)"))
    func theServiceWorkerShowsWhatIsPushed() async throws {
        let server = try await ServerRig()
        func stop() async {
            await server.stop()
        }
        try await HIL.inBrowser(then: stop) { browser in
            _ = try await server.registerStore(["name": "Mercato Centrale", "address": "Via Roma 1, Milano"])
            #expect(await browser.next(timeout: .seconds(60)) == "ready")
            await HIL.ok(browser, "open t \(server.url)/?q=milano")
            await HIL.ok(browser, "allow t notifications")
            await HIL.ok(browser, "press t [data-take]")
            await HIL.ok(browser, "expect t code V001")
            let page = try #require(await browser.ask("url t"))
            // Reloaded with notifications allowed: the page registers the service worker.
            await HIL.ok(browser, "open t \(page.dropFirst(3))")
            await HIL.ok(browser, "expect t code V001")
            let called = "Ticket V001: go to the door of Mercato Centrale now."
            let message = #"{"title":"It is your turn","body":"\#(called)","url":"/","tag":"clup-V001"}"#
            await HIL.ok(browser, "push t \(message)")
            var shown = await Self.notifications(browser, showing: "It is your turn")
            #expect(shown == #"ok [["It is your turn", "\#(called)", "clup-V001"]]"#)
            // The next notice of the same ticket replaces it.
            let expired = #"{"title":"Your ticket expired","body":"Ticket V001 expired.","url":"/","tag":"clup-V001"}"#
            await HIL.ok(browser, "push t \(expired)")
            shown = await Self.notifications(browser, showing: "expired")
            #expect(shown == #"ok [["Your ticket expired", "Ticket V001 expired.", "clup-V001"]]"#)
        }
    }
}
