import Foundation
import KioskCore
import KioskStation
import Logging
@_spi(Seeding) import StationStore

extension SyncBenchmarks {
    /// A new kiosk catching up a store's log of `events` events, once with every event of a type it knows and
    /// once with one in ten of a newer clup-server's type (kept as it came, changing nothing): events a second
    /// until it holds the whole log, three runs of each, alternated. Forward compatibility should cost little
    /// (goal: ≥ 0.9× the rate without them).
    static func pullPastNewerEvents(events: Int) async throws {
        print("\n== A new kiosk pulls a log of \(events) events: none of a newer version, then one in ten")
        var rates: [Int: [Double]] = [0: [], 10: []]
        for _ in 0..<3 {
            for every in [0, 10] { rates[every]?.append(try await catchUp(events: events, newerEvery: every)) }
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let known = median(rates[0] ?? [1])
        let mixed = median(rates[10] ?? [0])
        print(
            "every type known: \(Int(known)) events/s (runs \(rates[0, default: []].map { Int($0) })); "
                + "one in ten newer: \(Int(mixed)) events/s (runs \(rates[10, default: []].map { Int($0) })) → "
                + "\(fmt(mixed / known, 2))× (goal ≥ 0.9×)"
        )
    }

    /// The rate at which a fresh kiosk (its sync alone) reads a log of `events`, one in `newerEvery` of them of
    /// a type it does not know (none when 0).
    private static func catchUp(events: Int, newerEvery: Int) async throws -> Double {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let server = try await BenchServer(machineSpeedKiosks: true)
        let store = try server.registerStore(capacity: 100_000)
        let credential = try server.enroll("bench-door", store: store)
        let fields = try JSONDecoder().decode(
            [String: JSONValue].self,
            from: Data(#"{"reason":"restock","until":1795000600000,"staff":["ana"]}"#.utf8)
        )
        var log: [StoreEvent] = []
        var now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000)) - .seconds(3600)
        var issued: Ticket?
        while log.count < events {
            now = now + .milliseconds(100)
            if newerEvery > 0, log.count % newerEvery == newerEvery - 1 {
                log.append(.new(.unknown(type: "lineStopped", fields: fields), store: store, device: "server", at: now))
            } else if let ticket = issued {
                log.append(.new(.ticketTaken(ticket.id), store: store, device: "bench-printer", at: now))
                issued = nil
            } else {
                let ticket = Ticket(
                    id: .v7(at: now),
                    store: store,
                    kind: .paper,
                    code: TicketCode(prefix: "A", number: log.count / 2 % 999 + 1),
                    issuedAt: now,
                    issuer: "bench-printer"
                )
                log.append(.new(.ticketIssued(ticket), store: store, device: "bench-printer", at: now))
                issued = ticket
            }
        }
        // Written to the shared log as another replica would, then one event through this replica's queue,
        // which catches it up.
        for start in stride(from: 0, to: log.count, by: 1000) {
            _ = try await server.app.database.append(
                Array(log[start..<min(start + 1000, log.count)]),
                store: store,
                onCommit: { _ in }
            )
        }
        let closing = StoreEvent.new(
            .scanRefused(reason: "bench", ticket: nil, door: "bench-printer"),
            store: store,
            device: "bench-printer",
            at: now + .seconds(1)
        )
        _ = try await server.app.logs.append([closing], store: store)
        var last: Int64 = 0
        for _ in 0..<1000 where last <= Int64(events) {
            last = server.app.logs.store(store)?.lastSequence ?? 0
            if last <= Int64(events) { try await Task.sleep(for: .milliseconds(10)) }
        }
        guard last > Int64(events) else { throw BenchError("the server's queue did not catch up the log: \(last)") }

        let state = NSTemporaryDirectory() + "clup-bench-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: state) }
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let local = try LocalStore(path: "\(state)/kioskd.sqlite")
        let replica = try QueueReplica(store: local, capacity: 100_000)
        var config = KioskConfig(store: .init(id: store))
        config.device.id = "bench-door"
        config.device.stateDirectory = state
        config.printer.enabled = false
        config.sync.server = server.url
        config.sync.credential = credential
        let sync = try SyncClient(config: config, store: local, queue: replica, logger: logger)
        let began = ContinuousClock.now
        let running = Task { try await sync.run() }
        defer { running.cancel() }
        while sync.status.lastSequence < last {
            guard ContinuousClock.now - began < .seconds(300) else { throw BenchError("the kiosk did not catch up") }
            try await Task.sleep(for: .milliseconds(2))
        }
        let elapsed = ContinuousClock.now - began
        if newerEvery > 0, sync.status.newerEvents < events / newerEvery {
            throw BenchError("the kiosk counted \(sync.status.newerEvents) newer events of \(events / newerEvery)")
        }
        running.cancel()
        _ = try? await running.value
        await server.stop()
        return Double(last) / (elapsed.microseconds / 1e6)
    }
}
