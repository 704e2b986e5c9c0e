import DeviceEmulators
import Drivers
import Foundation
import KioskCore
import KioskStation
import Logging
import ServiceLifecycle

/// Printer station benchmark (issue "printer station"): the emulator flips "taken", how long until the next
/// ticket's cut command arrives, for status polling and ASB push, over TCP and a pty.
enum StationBenchmarks {
    static func tearOff(count: Int) async throws {
        let profile = try PrinterProfile.load(named: "citizen-ppu-700")  // presenter bit by DLE EOT 4 and by ASB
        let bytes = try EscPosEncoder(profile: profile).encode(
            TicketLayout.document(
                TicketPrintout(
                    storeName: "CLup Market",
                    code: TicketCode(prefix: "A", number: 42),
                    qrPayload: "HTTPS://CLUP.EXAMPLE/T/" + String(repeating: "Q", count: 177),
                    peopleAhead: 3,
                    estimatedWait: .seconds(360),
                    printedAt: "2026-11-22 09:41"
                )
            )
        )
        print("\n== Tear-off → next ticket's cut at the emulator (\(profile.name), \(count) tear-offs each)")
        print(
            "ticket: \(bytes.count) bytes with native QR; at 9600 baud 8N1 that is \(fmt(Double(bytes.count) * 10 / 9600, 2)) s on the wire"
        )
        print("sensor        transport   poll ms   p50 ms   p99 ms   max ms   target p99")
        for sensor in [TakeSensor.statusPoll, .asb] {
            for transport in ["tcp", "pty"] {
                let samples = try await run(profile: profile, sensor: sensor, transport: transport, count: count)
                let target = sensor == .asb ? "≤ 150" : "≤ 150 (poll + 50)"
                print(
                    "\(sensor.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0))  \(transport.padding(toLength: 9, withPad: " ", startingAt: 0))   "
                        + "\(String(100).leftPad(7))   \(fmt(samples.p50).leftPad(6))   \(fmt(samples.p99).leftPad(6))   "
                        + "\(fmt(samples.percentile(100)).leftPad(6))   \(target)"
                )
            }
        }
    }

    static func run(
        profile: PrinterProfile,
        sensor: TakeSensor,
        transport: String,
        count: Int
    ) async throws -> Samples {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let emulator = try PrinterEmulator(profile: profile, logger: logger)
        let tcp = try TCPEndpoint(emulator: emulator, port: 0, logger: logger)
        let pty = try PtyEndpoint(emulator: emulator, logger: logger)
        defer {
            tcp.stop()
            pty.stop()
        }
        let state = NSTemporaryDirectory() + "clup-bench-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: state) }
        var config = KioskConfig(store: .init(id: UUID()))
        config.device.stateDirectory = state
        config.printer.profile = profile.id
        config.printer.address =
            transport == "tcp" ? "tcp://127.0.0.1:\(tcp.port)" : "serial://\(pty.slavePath)?baud=115200"
        config.printer.takeSensor = sensor
        config.http.port = 0
        let kiosk = try Kiosk.build(config: config, logger: logger)
        let group = kiosk.serviceGroup(logger: logger, handleSignals: false)
        let task = Task { try await group.run() }
        defer { task.cancel() }

        var samples = Samples()
        var rng = SystemRandomNumberGenerator()
        for n in 1...count {
            guard emulator.waitForTickets(count: n, timeout: .seconds(10)) != nil else {
                throw BenchError("ticket \(n) never came (\(sensor.rawValue) over \(transport))")
            }
            // A customer takes the ticket some time after it came out, at no fixed phase of the poll.
            try await Task.sleep(for: .milliseconds(Int.random(in: 40...160, using: &rng)))
            let taken = ContinuousClock.now
            emulator.simulate(.take)
            guard let tickets = emulator.waitForTickets(count: n + 1, timeout: .seconds(10)) else {
                throw BenchError("no ticket after tear-off \(n) (\(sensor.rawValue) over \(transport))")
            }
            samples.add((tickets[tickets.count - 1].cutAt - taken).microseconds / 1000)
        }
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        return samples
    }
}
