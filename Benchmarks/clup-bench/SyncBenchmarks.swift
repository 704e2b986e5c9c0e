import DeviceEmulators
import Drivers
import Foundation
import KioskCore
import KioskStation
import Logging
import ServiceLifecycle
@_spi(Seeding) import StationStore

/// Sync benchmarks (issue "clup-server and sync"): how soon a tear-off is in the server's queue, and how
/// long a kiosk takes to hand the server what it kept while the server was away.
enum SyncBenchmarks {
    /// A kiosk (printer with ASB, emulator over TCP) syncing with clup-server on loopback: from the emulator
    /// flipping "taken" until the ticket waits in the server's in-memory queue.
    static func tearOffToServer(count: Int) async throws {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let server = try await BenchServer(machineSpeedKiosks: true)
        let store = try server.registerStore(capacity: 100_000)
        let credential = try server.enroll("bench-entrance", store: store)
        let profile = try PrinterProfile.load(named: "citizen-ppu-700")
        let emulator = try PrinterEmulator(profile: profile, logger: logger)
        let tcp = try TCPEndpoint(emulator: emulator, port: 0, logger: logger)
        defer { tcp.stop() }
        let state = NSTemporaryDirectory() + "clup-bench-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: state) }
        var config = KioskConfig(store: .init(id: store))
        config.device.id = "bench-entrance"
        config.device.stateDirectory = state
        config.printer.profile = profile.id
        config.printer.address = "tcp://127.0.0.1:\(tcp.port)"
        config.printer.takeSensor = .asb
        config.http.port = 0
        config.sync.server = server.url
        config.sync.credential = credential
        let kiosk = try Kiosk.build(config: config, logger: logger)
        let group = kiosk.serviceGroup(logger: logger, handleSignals: false)
        let task = Task { try await group.run() }
        defer { task.cancel() }
        guard let live = server.app.logs.store(store) else { throw BenchError("no store") }

        print(
            "\n== Tear-off → ticket waiting in clup-server's queue (\(profile.name), ASB over TCP, \(count) tear-offs)"
        )
        var samples = Samples()
        var rng = SystemRandomNumberGenerator()
        for n in 1...count {
            guard emulator.waitForTickets(count: n, timeout: .seconds(10)) != nil else {
                throw BenchError("ticket \(n) never came")
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 40...160, using: &rng)))
            let taken = ContinuousClock.now
            emulator.simulate(.take)
            let arrived = await live.changes.wait(timeout: .seconds(10)) {
                server.app.logs.store(store)?.state.waiting.count == n
            }
            guard arrived else { throw BenchError("tear-off \(n) never reached the server") }
            samples.add((ContinuousClock.now - taken).microseconds / 1000)
        }
        print(
            "p50 \(fmt(samples.p50)) ms, p99 \(fmt(samples.p99)) ms, max \(fmt(samples.percentile(100))) ms "
                + "(target p99 ≤ 500 ms; requirement 10 s)"
        )
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        await server.stop()
    }

    /// A kiosk holding `events` unsent events (tickets issued and taken while the server was down) when the
    /// server comes back on its address: time until the server has them all, split into the wait for the
    /// kiosk's next retry (its backoff) and the upload itself.
    static func outboxDrain(events: Int) async throws {
        var logger = Logger(label: "bench")
        logger.logLevel = .critical  // the kiosk warns on every failed retry while the server is down
        var server = try await BenchServer(machineSpeedKiosks: true)
        let (directory, port) = (server.directory, server.port)
        let store = try server.registerStore(capacity: 100_000)
        let credential = try server.enroll("bench-entrance", store: store)
        await server.stop(removingData: false)

        let state = NSTemporaryDirectory() + "clup-bench-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: state) }
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let local = try LocalStore(path: "\(state)/kioskd.sqlite")
        var log: [StoreEvent] = []
        var now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000)) - .seconds(3600)
        for number in 1...(events / 2) {
            let ticket = Ticket(
                id: .v7(at: now),
                store: store,
                kind: .paper,
                code: TicketCode(prefix: "A", number: number),
                issuedAt: now,
                issuer: "bench-entrance"
            )
            log.append(StoreEvent.new(.ticketIssued(ticket), store: store, device: "bench-entrance", at: now))
            now = now + .milliseconds(300)
            log.append(StoreEvent.new(.ticketTaken(ticket.id), store: store, device: "bench-entrance", at: now))
        }
        try local.append(log)

        var config = KioskConfig(store: .init(id: store))
        config.device.id = "bench-entrance"
        config.device.stateDirectory = state
        config.printer.enabled = false
        config.http.port = 0
        config.sync.server = "http://127.0.0.1:\(port)"
        config.sync.credential = credential
        let kiosk = try Kiosk.build(config: config, logger: logger)
        let group = kiosk.serviceGroup(logger: logger, handleSignals: false)
        let task = Task { try await group.run() }
        defer { task.cancel() }
        // Down long enough for the kiosk's retries to reach their longest wait.
        try await Task.sleep(for: .seconds(12))

        print("\n== Outbox drain: \(log.count) events kept by a kiosk while clup-server was down")
        server = try await BenchServer(directory: directory, port: port, machineSpeedKiosks: true)
        let back = ContinuousClock.now
        var firstPush: ContinuousClock.Instant?
        while ContinuousClock.now - back < .seconds(60) {
            let left = try local.outboxCount()
            if firstPush == nil, left < log.count { firstPush = .now }
            if left == 0, (server.app.logs.store(store)?.lastSequence ?? 0) >= Int64(log.count) { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        let done = ContinuousClock.now
        guard try local.outboxCount() == 0 else { throw BenchError("the outbox did not drain in 60 s") }
        let retry = (firstPush ?? done) - back
        print(
            "server back → drained: \(fmt((done - back).microseconds / 1e6, 2)) s "
                + "(waiting for the kiosk's next retry \(fmt(retry.microseconds / 1e6, 2)) s, "
                + "upload \(fmt((done - (firstPush ?? done)).microseconds / 1e6, 2)) s; target ≤ 10 s)"
        )
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        await server.stop()
    }
}
