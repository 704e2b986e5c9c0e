import DeviceEmulators
import Foundation
import KioskCore
import KioskStation
import Logging
import ServiceSupport
@_spi(Seeding) import StationStore

/// Door station benchmark (issue "door station"): a scan fully received on a pty → the decision written to
/// the log and visible on the status endpoint, polled over one keep-alive connection and pushed over the
/// live page's event stream.
enum DoorBenchmarks {
    static func scanToDecision(count: Int) async throws {
        print(
            "\n== Scan fully received on a pty → decision in the log and on the status endpoint (\(count) scans each)"
        )
        print("seen through          p50 ms   p99 ms   max ms   target p99")
        for follow in [false, true] {
            let samples = try await run(count: count) { port, scanner, payloads in
                try measure(port: port, scanner: scanner, payloads: payloads, followEvents: follow)
            }
            print(
                "\((follow ? "GET /events (SSE)" : "GET /status (poll)").padding(toLength: 20, withPad: " ", startingAt: 0))  "
                    + "\(fmt(samples.p50, 2).leftPad(7))  \(fmt(samples.p99, 2).leftPad(7))  "
                    + "\(fmt(samples.percentile(100), 2).leftPad(7))   ≤ 10"
            )
        }
    }

    /// A door kiosk (printer off) whose store holds `count` taken tickets, each admitted when scanned; `measure`
    /// scans their payloads on the pty scanner and reads the kiosk's HTTP port, on a thread of its own.
    static func run(
        count: Int,
        configure: (inout KioskConfig) -> Void = { _ in },
        measure: @escaping @Sendable (Int, SerialScannerEmulator, [String]) throws -> Samples
    ) async throws -> Samples {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        let state = NSTemporaryDirectory() + "clup-bench-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: state) }
        var config = KioskConfig(store: .init(id: UUID()))
        config.device.stateDirectory = state
        config.store.capacity = 100_000  // every scanned ticket is admitted: the path that writes the most
        config.printer.enabled = false
        config.door.enabled = true
        config.door.scanner = "serial://\(scanner.path)"
        config.http.port = 0
        configure(&config)
        let kiosk = try Kiosk.build(config: config, logger: logger)
        guard let door = kiosk.door else { throw BenchError("no door station") }

        // Tickets this kiosk's printer printed and customers took: signed by its own key, as its issuer (a
        // ticket that names another device as its issuer but carries this key is refused as forged).
        let signer = try kiosk.store.signingKey()
        let issuer = config.device.id
        let now = WallClock.system.now()
        var events: [StoreEvent] = []
        var payloads: [String] = []
        for n in 1...count {
            let ticket = Ticket(
                id: .v7(at: now),
                store: config.store.id,
                kind: .paper,
                code: TicketCode(prefix: "B", number: n % 1000),
                issuedAt: now,
                issuer: issuer
            )
            for body in [StoreEvent.Body.ticketIssued(ticket), .ticketTaken(ticket.id)] {
                events.append(
                    StoreEvent(id: .v7(at: now), store: config.store.id, device: issuer, time: now, body: body)
                )
            }
            payloads.append(TicketCodec.encode(ticket, signer: signer, prefix: config.store.statusURL))
        }
        try kiosk.store.append(events)
        kiosk.queue.apply(events)

        let group = kiosk.serviceGroup(logger: logger, handleSignals: false)
        let task = Task { try await group.run() }
        defer { task.cancel() }
        guard let port = kiosk.httpPort.wait() else { throw BenchError("the HTTP endpoint did not start") }
        for _ in 0..<500 where door.status.state != "ready" { try await Task.sleep(for: .milliseconds(10)) }

        // The client blocks on its socket: on a thread of its own, off the pool the server runs on.
        let samples = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<Samples, any Error>) in
            Thread { [payloads] in
                continuation.resume(with: Result { try measure(port, scanner, payloads) })
            }.start()
        }
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        return samples
    }

    static func measure(
        port: Int,
        scanner: SerialScannerEmulator,
        payloads: [String],
        followEvents: Bool
    ) throws -> Samples {
        let client = try LoopbackHTTP(port: port)
        let decoder = JSONDecoder()
        func admitted(_ body: [UInt8]) throws -> Int {
            try decoder.decode(StationStatus.self, from: Data(body)).door?.admitted ?? -1
        }
        if followEvents {
            try client.openEvents("/events")
            _ = try client.nextEvent()
        }
        var samples = Samples()
        var rng = SystemRandomNumberGenerator()
        for (i, payload) in payloads.enumerated() {
            usleep(UInt32.random(in: 2_000...8_000, using: &rng))  // scans one at a time, as at a door
            try scanner.scan(payload)
            let received = ContinuousClock.now
            while try admitted(followEvents ? client.nextEvent() : client.get("/status")) < i + 1 {}
            samples.add((ContinuousClock.now - received).microseconds / 1000)
        }
        return samples
    }
}
