import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking

@testable import Rigs
#endif

/// `kiosk-demo` (what `make demo` runs) as a user drives it from the keyboard: a paper ticket torn off and an
/// app ticket taken join one queue, both are admitted at the emulated scanner, someone leaves, the embedded
/// server receives it all through sync, and Ctrl-C stops everything cleanly.
@Suite(.serialized) struct DemoTests {
    static var demoProgram: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("kiosk-demo")
            .path
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: demoProgram),
            "kiosk-demo is not built next to the tests"
        )
    )
    func theDemoRunsBothRolesWithAnEmbeddedServer() async throws {
        let out = HIL.temporaryDirectory("demo")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let demo = try LineProcess(
            Self.demoProgram,
            ["--out", out, "--http-port", "0", "--server-port", "0", "--no-browser"],
            stderrToo: true
        )
        do {
            let server = try #require(await demo.line(containing: "embedded clup-server at"), "\(demo.all)")
            let serverURL = try #require(server.split(separator: " ").first { $0.hasPrefix("http://") })
                .replacingOccurrences(of: "/v1,", with: "")
            #expect(await demo.line(containing: "shopper: \(serverURL)/") != nil, "\(demo.all)")
            #expect(await demo.line(containing: "console: \(serverURL)/console") != nil, "\(demo.all)")
            // The pages' line comes once the kiosk's HTTP server listens, the first ticket once it is printed:
            // either may come first.
            var pages: String?
            var firstTicket: String?
            while pages == nil || firstTicket == nil, let line = await demo.next(timeout: .seconds(20)) {
                if line.contains("pages:") { pages = line }
                if line.contains("A001") { firstTicket = line }
            }
            #expect(pages?.contains("/display") == true && pages?.contains("/metrics") == true, "\(demo.all)")
            #expect(firstTicket != nil, "the first ticket prints: \(demo.all)")

            demo.send("")
            #expect(await demo.line(containing: "ticket A001 torn off") != nil, "\(demo.all)")
            // Keys come through a pipe here, not a terminal: the legend says a key needs Enter.
            #expect(demo.all.contains { $0.contains("type a key, then Enter") }, "\(demo.all)")
            demo.send("a")
            #expect(await demo.line(containing: "app ticket V001 taken") != nil, "\(demo.all)")
            demo.send("s")
            #expect(await demo.line(containing: "door: A001 ✔") != nil, "\(demo.all)")
            #expect(await demo.line(containing: "light: green+gate") != nil, "\(demo.all)")
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

            // Installed with its store's zone: it never counts days in a zone it guessed.
            #expect(!demo.all.contains { $0.contains("time zone is not known") }, "\(demo.all)")
            #expect(await demo.interrupt() == 0, "Ctrl-C stops the demo cleanly: \(demo.all)")
            #expect(demo.all.contains("demo stopped"))
            #expect(FileManager.default.fileExists(atPath: "\(out)/tickets/ticket-0001.png"))
            // No sound card on a test machine: what the kiosk said is in WAV files (the number of A001, the door's
            // "come in", the calls); on a machine with one the demo speaks instead.
            let cards = (try? String(contentsOfFile: "/proc/asound/cards", encoding: .utf8)) ?? ""
            if !cards.contains("]:") {
                #expect(demo.all.contains { $0.contains("each phrase is a WAV file in \(out)/voice") }, "\(demo.all)")
                let said = (try? FileManager.default.contentsOfDirectory(atPath: "\(out)/voice")) ?? []
                #expect(
                    said.contains { $0.hasSuffix("-number-A001.wav") }
                        && said.contains { $0.hasSuffix("-door-admit.wav") },
                    "\(said)"
                )
            }
        } catch {
            _ = await demo.interrupt(timeout: .seconds(5))
            throw error
        }
    }

    /// On a terminal a key acts at once, without Enter; the terminal's line mode comes back when the demo quits,
    /// and also when it crashes.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: demoProgram), "kiosk-demo is not built"))
    func singleKeysActAtOnceOnATerminal() async throws {
        for ending in ["q", "crash"] {
            let out = HIL.temporaryDirectory("demo-keys")
            defer { try? FileManager.default.removeItem(atPath: out) }
            let terminal = try PseudoTerminal()
            let demo = try LineProcess(
                Self.demoProgram,
                ["--out", out, "--http-port", "0", "--server-port", "0", "--no-browser"],
                stderrToo: true,
                terminal: terminal
            )
            #expect(await demo.line(containing: "Enter: tear the ticket off") != nil, "\(demo.all)")
            #expect(!terminal.inLineMode, "single keys: canonical input and echo off")
            terminal.type("a")
            #expect(await demo.line(containing: "app ticket V001 taken") != nil, "\(demo.all)")
            terminal.type("\r")
            #expect(await demo.line(containing: "ticket A001 torn off") != nil, "\(demo.all)")
            #expect(!demo.all.contains { $0.contains("type a key, then Enter") }, "a terminal needs no Enter")
            if ending == "q" {
                terminal.type("q")
                #expect(await demo.waitForExit(timeout: .seconds(15)) == 0, "q quits cleanly: \(demo.all)")
            } else {
                kill(demo.process.processIdentifier, SIGSEGV)
                _ = await demo.waitForExit(timeout: .seconds(15))
                #expect(demo.process.terminationReason == .uncaughtSignal)
            }
            #expect(terminal.inLineMode, "the terminal is back in line mode after \(ending)")
            if demo.process.isRunning { _ = await demo.interrupt(timeout: .seconds(5)) }
        }
    }
}
