import ArgumentParser
import DeviceEmulators
import Drivers
import Foundation
import KioskCore
import KioskStation
import Logging
import ServiceLifecycle

/// `kioskd demo`: the printer role against an emulated presenter printer, with a keyboard to play the customer.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the kiosk against an emulated printer; press Enter to tear a ticket off."
    )

    @Option(help: "Where tickets (PNG) and the demo's state go.")
    var out = "out/demo"

    @Option(help: "Printer profile the emulator behaves like.")
    var profile = "citizen-ppu-700"

    @Option(help: "Port of the local status page (0 picks a free one).")
    var httpPort = 8080

    func run() async throws {
        let logger = Logging.bootstrap(level: "notice")
        let out = URL(fileURLWithPath: out).standardizedFileURL.path
        try? FileManager.default.removeItem(atPath: out)
        let printerProfile = try PrinterProfile.load(named: profile)
        var emulatorLogger = logger
        emulatorLogger.logLevel = .warning
        let emulator = try PrinterEmulator(
            profile: printerProfile,
            outputDirectory: "\(out)/tickets",
            logger: emulatorLogger
        )
        let endpoint = try TCPEndpoint(emulator: emulator, port: 0, logger: emulatorLogger)
        defer { endpoint.stop() }
        emulator.onTicket { ticket in
            let lines = ticket.text.filter { !$0.isEmpty }.map { "  │ \($0)" }.joined(separator: "\n")
            say(
                "\nticket printed → \(ticket.pngPath ?? "?")\n\(lines)\n  (Enter: tear it off · p: paper out/in · c: cover open/closed · q: quit)"
            )
        }

        var config = KioskConfig(store: .init(id: UUID(uuidString: "6F1D5C2E-3B8A-4E61-9C7D-2A5B8E4F1C90")!))
        config.store.name = "CLup Demo Market"
        config.store.capacity = 10
        config.device.id = "demo-entrance"
        config.device.stateDirectory = "\(out)/state"
        config.printer.address = "tcp://127.0.0.1:\(endpoint.port)"
        config.printer.profile = profile
        config.http.port = httpPort
        let kiosk = try Kiosk.build(config: config, logger: logger)
        let group = kiosk.serviceGroup(logger: logger)
        say(
            "CLup kiosk demo: \(printerProfile.name) emulated on tcp://127.0.0.1:\(endpoint.port), tickets in \(out)/tickets"
        )
        let keyboard = Thread {
            var paper = false
            var cover = false
            while let line = readLine() {
                switch line.trimmingCharacters(in: .whitespaces) {
                case "q":
                    Task { await group.triggerGracefulShutdown() }
                    return
                case "p":
                    paper.toggle()
                    emulator.simulate(.paperEnd(paper))
                    say(paper ? "paper ran out" : "paper loaded")
                case "c":
                    cover.toggle()
                    emulator.simulate(.coverOpen(cover))
                    say(cover ? "cover opened" : "cover closed")
                default:
                    guard emulator.activeConditions.contains(.ticketPresent) else {
                        say("no ticket waits in the printer right now")
                        continue
                    }
                    emulator.simulate(.take)
                    say("ticket torn off")
                }
            }
        }
        keyboard.start()
        Task {
            if let port = kiosk.httpPort.wait() {
                say(
                    "status: http://127.0.0.1:\(port)/status   tear-off over HTTP: curl -X POST http://127.0.0.1:\(port)/printer/take"
                )
            }
        }
        try await group.run()
    }
}

/// Writes a line to standard output at once.
func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}
