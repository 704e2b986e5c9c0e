import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `kioskd demo` (what `make demo` runs) as a user drives it from the keyboard: a paper ticket torn off and an
/// app ticket taken join one queue, both are admitted at the emulated scanner, someone leaves, the embedded
/// server receives it all through sync, and Ctrl-C stops everything cleanly.
@Suite(.serialized) struct DemoTests {
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: CrashTests.kioskd),
            "kioskd is not built next to the tests"
        )
    )
    func theDemoRunsBothRolesWithAnEmbeddedServer() async throws {
        let out = HIL.temporaryDirectory("demo")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let demo = try LineProcess(
            CrashTests.kioskd,
            ["demo", "--out", out, "--http-port", "0", "--server-port", "0", "--no-browser"],
            stderrToo: true
        )
        do {
            let server = try #require(await demo.line(containing: "embedded clup-server at"), "\(demo.all)")
            let serverURL = try #require(server.split(separator: " ").first { $0.hasPrefix("http://") })
                .replacingOccurrences(of: "/v1,", with: "")
            #expect(await demo.line(containing: "shopper: \(serverURL)/") != nil, "\(demo.all)")
            #expect(await demo.line(containing: "console: \(serverURL)/console") != nil, "\(demo.all)")
            let pages = try #require(await demo.line(containing: "pages:"), "\(demo.all)")
            #expect(pages.contains("/display") && pages.contains("/metrics"))
            #expect(await demo.line(containing: "A001") != nil, "the first ticket prints: \(demo.all)")

            demo.send("")
            #expect(await demo.line(containing: "ticket A001 torn off") != nil, "\(demo.all)")
            demo.send("a")
            #expect(await demo.line(containing: "app ticket V001 taken") != nil, "\(demo.all)")
            demo.send("s")
            #expect(await demo.line(containing: "door: A001 ✔") != nil, "\(demo.all)")
            demo.send("s")
            #expect(await demo.line(containing: "door: V001 ✔") != nil, "\(demo.all)")
            demo.send("s")
            #expect(await demo.line(containing: "nobody holds a ticket") != nil, "\(demo.all)")
            demo.send("x")
            #expect(await demo.line(containing: "someone left the store") != nil, "\(demo.all)")

            // The embedded server got the kiosk's events: one person inside of two admitted, nobody waiting.
            var summary: [String: Any] = [:]
            for _ in 0..<100 {
                let url = URL(string: "\(serverURL)/v1/stores?lat=45.4642&lon=9.19")!
                let (data, _) = try await URLSession.shared.data(from: url)
                let stores =
                    (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["stores"] as? [[String: Any]]
                summary = stores?.first ?? [:]
                if summary["inside"] as? Int == 1 && summary["waiting"] as? Int == 0 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(summary["name"] as? String == "CLup Demo Market")
            #expect(summary["inside"] as? Int == 1 && summary["waiting"] as? Int == 0, "\(summary)")
            // The shopper's start page it prints finds the demo store.
            let (page, _) = try await URLSession.shared.data(from: URL(string: "\(serverURL)/?q=demo")!)
            #expect(String(decoding: page, as: UTF8.self).contains("CLup Demo Market"))

            #expect(await demo.interrupt() == 0, "Ctrl-C stops the demo cleanly: \(demo.all)")
            #expect(demo.all.contains("demo stopped"))
            #expect(FileManager.default.fileExists(atPath: "\(out)/tickets/ticket-0001.png"))
        } catch {
            _ = await demo.interrupt(timeout: .seconds(5))
            throw error
        }
    }
}
