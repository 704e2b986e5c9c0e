import AsyncHTTPClient
import DeviceEmulators
import Foundation
import Glibc
import KioskCore
import KioskStation
import Testing

@testable import Rigs

/// A box installed with only the server's address: a real kioskd prints a pairing ticket on its (emulated)
/// printer, the manager types the printed code in the console, and the box starts as the store's kiosk — its
/// credential kept with mode 600, its first ticket printed, online. Restarted, it starts paired; told to forget,
/// it prints a new code; the code is single use.
@Suite(
    .serialized,
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: HIL.kioskd),
        "needs kioskd built next to the tests (make test)"
    )
)
struct KioskPairingTests {
    /// A kioskd process on `config`; its standard error kept in `log`.
    static func start(_ config: String, log: String) throws -> Process {
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: HIL.kioskd)
        process.arguments = ["run", "--config", config]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: log)
        try process.run()
        return process
    }

    static func stop(_ process: Process) {
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }

    /// Polls `condition` every 50 ms for up to `timeout`.
    static func eventually(_ timeout: Duration = .seconds(20), _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return await condition()
    }

    /// The pairing code on a printed ticket, if it is a pairing ticket.
    static func code(on ticket: PrintedTicket) -> String? {
        guard ticket.text.contains(where: { $0.contains("Pair this kiosk") }) else { return nil }
        return ticket.text.lazy.compactMap { $0.firstMatch(of: /[B-Z]{4}-[B-Z]{4}/).map { String($0.0) } }.first
    }

    @Test func aBoxPairsByThePrintedCodeAndStartsAsTheStoresKiosk() async throws {
        let server = try await ServerRig()
        try await ConsoleRig.run(server) { try await pairs($0, server) }
    }

    /// A door with no printer: nothing to print its code on, so the manager shows a pairing QR in the console
    /// and the installer holds it to the door's own scanner; the box pairs as a door of the chosen store.
    @Test func aDoorWithNoPrinterPairsByScanningTheConsolesCode() async throws {
        let server = try await ServerRig()
        try await ConsoleRig.run(server) { try await doorPairs($0, server) }
    }

    func doorPairs(_ client: HTTPClient, _ server: ServerRig) async throws {
        let store = try await server.registerStore(manager: "giulia")
        let scanner = try SerialScannerEmulator(suffix: .cr)
        let state = HIL.temporaryDirectory("pairing-door")
        let port = try HIL.freePort()
        let config = try KioskdConfig.write(
            state: state,
            printer: "tcp://127.0.0.1:9",
            store: KioskConfig.placeholderStore,
            device: "door-box",
            zone: "UTC",
            httpPort: port,
            printer: "enabled = false",
            extra: """
                [door]
                enabled = true
                scanner = "serial://\(scanner.path)"
                [sync]
                server = "\(server.url)"
                pull_wait_seconds = 5
                """
        )
        let log = "\(state)/kioskd.log"
        let process = try Self.start(config, log: log)
        defer {
            Self.stop(process)
            scanner.close()
            try? FileManager.default.removeItem(atPath: state)
        }
        func diagnostics() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        #expect(
            await Self.eventually {
                let page = try? await ConsoleRig.exchange(
                    client,
                    HTTPClientRequest(url: "http://127.0.0.1:\(port)/status")
                )
                return page?.body.contains("\"code\"") == true
            },
            "waiting to pair: \(diagnostics())"
        )
        // Scanner noise while pairing (a shopper's ticket, garbage) is ignored.
        try scanner.scan("HTTPS://CLUP.EXAMPLE/T/NOTATICKET")
        try scanner.scan("CLUP-PAIR:made-up")

        let giulia = try await ConsoleRig.login(client, server, as: "giulia")
        let offer = try await giulia.submit(
            "device=door-1&store=\(store.uuidString.lowercased())&role=door",
            to: "/console/pair/offer",
            from: "/console/pair"
        )
        #expect(offer.status == 200, "\(offer.body.prefix(300))")
        try scanner.scan(try SVGQR.decode(offer.body, in: state))

        #expect(
            await Self.eventually(.seconds(30)) { (try? await HIL.status(port: port))?.sync?.state == "online" },
            "\(diagnostics())"
        )
        let status = try await HIL.status(port: port)
        #expect(status.device == "door-1" && status.door != nil && status.printer == nil, "\(status.device)")
        let kept = try JSONDecoder().decode(
            PairedKiosk.self,
            from: Data(contentsOf: URL(fileURLWithPath: "\(state)/paired.json"))
        )
        #expect(kept.paired.store == store && kept.paired.role == .door)
    }

    func pairs(_ client: HTTPClient, _ server: ServerRig) async throws {
        let store = try await server.registerStore(manager: "giulia")
        let printer = try EmulatorRig(profile: "custom-vkp80iii")
        let state = HIL.temporaryDirectory("pairing")
        let port = try HIL.freePort()
        // Only what belongs to the box: its printer, its port, the server's address; no store, no credential.
        let config = try KioskdConfig.write(
            state: state,
            printer: printer.tcpAddress,
            store: KioskConfig.placeholderStore,
            device: "entrance-1",
            zone: "UTC",
            httpPort: port,
            extra: """
                [sync]
                server = "\(server.url)"
                pull_wait_seconds = 5
                """
        )
        let log = "\(state)/kioskd.log"
        var process = try Self.start(config, log: log)
        defer {
            Self.stop(process)
            printer.stop()
            try? FileManager.default.removeItem(atPath: state)
        }
        func diagnostics() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        // The pairing ticket: the code, where to type it, and a QR of the console's page with the code.
        #expect(await Self.eventually { printer.emulator.ticketCount >= 1 }, "no pairing ticket: \(diagnostics())")
        let ticket = try #require(printer.emulator.tickets.first)
        let code = try #require(Self.code(on: ticket), "\(ticket.text)")
        #expect(ticket.text.joined(separator: " ").contains("\(server.url)/console/pair"), "\(ticket.text)")
        #expect(ticket.text.contains { $0.contains("Kiosk: entrance-1") }, "\(ticket.text)")
        #expect(
            ticket.qrCodes == ["\(server.url)/console/pair?code=\(code.replacingOccurrences(of: "-", with: ""))"],
            "\(ticket.qrCodes)"
        )
        // The box's own pages show the same code (a display in the window, a screen on the box).
        let display = try await ConsoleRig.exchange(client, HTTPClientRequest(url: "http://127.0.0.1:\(port)/display"))
        #expect(display.status == 200 && display.body.contains(code), "\(display.body.prefix(300))")
        let status = try await ConsoleRig.exchange(client, HTTPClientRequest(url: "http://127.0.0.1:\(port)/status"))
        #expect(status.status == 503 && status.body.contains("\"state\":\"pairing\"") && status.body.contains(code))
        printer.emulator.simulate(.take)  // the installer tears it off to read it

        let giulia = try await ConsoleRig.login(client, server, as: "giulia")
        let approved = try await giulia.pair(code, store: store, role: "printer")
        #expect(approved.status == 200, "\(approved.body.prefix(300))")

        // Within a poll (5 s) and a start: the store's first ticket, and the kiosk online with the server.
        #expect(await Self.eventually(.seconds(30)) { printer.emulator.ticketCount >= 2 }, "\(diagnostics())")
        #expect(
            Self.code(on: printer.emulator.tickets[1]) == nil,
            "a store's ticket: \(printer.emulator.tickets[1].text)"
        )
        #expect(
            await Self.eventually { (try? await HIL.status(port: port))?.sync?.state == "online" },
            "\(diagnostics())"
        )
        let paired = "\(state)/paired.json"
        var info = stat()
        #expect(stat(paired, &info) == 0 && info.st_mode & 0o777 == 0o600, "the credential's file mode")
        let kept = try JSONDecoder().decode(PairedKiosk.self, from: Data(contentsOf: URL(fileURLWithPath: paired)))
        #expect(kept.paired.store == store && kept.paired.device == "entrance-1" && kept.paired.role == .printer)
        let devices = try await server.call("GET", "/v1/stores/\(store.uuidString)/devices")
        #expect((devices.body["devices"] as? [[String: Any]])?.first?["device"] as? String == "entrance-1")

        // Restarted, it starts paired: no new code.
        Self.stop(process)
        process = try Self.start(config, log: log)
        #expect(
            await Self.eventually { (try? await HIL.status(port: port))?.sync?.state == "online" },
            "\(diagnostics())"
        )
        #expect(printer.emulator.tickets.allSatisfy { Self.code(on: $0) == nil || $0.number == 1 }, "paired once")

        // Told to forget (after a revocation, say), it prints a new code at its next start; the old one is used.
        Self.stop(process)
        let forget = try HIL.run(HIL.kioskd, ["pair", "--config", config, "--forget"])
        #expect(
            forget.status == 0 && !FileManager.default.fileExists(atPath: paired),
            "\(forget.output)\(forget.error)"
        )
        let printed = printer.emulator.ticketCount
        if printer.emulator.ticketCount > 0 { printer.emulator.simulate(.take) }
        process = try Self.start(config, log: log)
        #expect(
            await Self.eventually {
                printer.emulator.tickets.dropFirst(printed).contains { Self.code(on: $0) != nil }
            },
            "a new pairing ticket: \(diagnostics())"
        )
        let newCode = printer.emulator.tickets.dropFirst(printed).compactMap(Self.code(on:)).first
        #expect(newCode != code, "a new code")
        #expect(try await giulia.get("/console/pair?code=" + code).status == 404, "the old code worked once")
    }
}
