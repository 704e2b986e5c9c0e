import CLupServer
import DeviceEmulators
import Drivers
import Foundation
import KioskCore
import Logging
import StationStore
import Testing

@testable import KioskStation
@testable import Rigs

/// kill -9 of kioskd at random moments, 50 times, while customers take tickets (some while it is down):
/// afterwards no code was issued twice or skipped, every torn-off ticket is in the queue once, and nothing
/// else is but a ticket the printer never cut (see `checkTickets`).
@Suite(.serialized) struct CrashTests {
    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: HIL.kioskd), "kioskd is not built next to the tests")
    )
    func killNineFiftyTimes() async throws {
        let rig = try EmulatorRig(profile: "custom-vkp80iii")
        defer { rig.stop() }
        let state = HIL.temporaryDirectory("crash")
        defer { try? FileManager.default.removeItem(atPath: state) }
        let config = try writeConfig(state: state, printer: rig.tcpAddress, store: StationRig.store)
        try await crashLoop(rounds: 50, config: config, rig: rig)
        let last = try await settle(config: config, rig: rig)
        try await stop(last)

        let events = try LocalStore(path: "\(state)/kioskd.sqlite").events()
        let taken = try checkTickets(in: events, rig: rig)
        let queue = QueueState(capacity: 50, events: events)
        #expect(queue.orphanEvents == 0)
        #expect(Set(queue.waiting.map(\.code.description)) == taken)
    }

    /// kill -9 of a syncing kioskd, 30 times: at random moments while customers take tickets, and (through
    /// a proxy) at the worst one, when the server has committed a push and its answer is on the way. When
    /// kioskd has caught up, every event it wrote is in the server's log exactly once with the
    /// sequence it recorded, the server's log has no ticket issued or taken twice, and the server's queue
    /// holds the tickets the log says were taken: all those torn off (and, killed at that moment, one never
    /// cut: see `checkTickets`).
    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: HIL.kioskd), "kioskd is not built next to the tests")
    )
    func killNineDuringSyncThirtyTimes() async throws {
        let server = try await ServerRig()
        let proxy = try TCPProxy(upstream: server.port)
        defer { proxy.stop() }
        let rig = try EmulatorRig(profile: "custom-vkp80iii")
        defer { rig.stop() }
        let state = HIL.temporaryDirectory("crash-sync")
        defer { try? FileManager.default.removeItem(atPath: state) }
        do {
            let storeID = try await server.registerStore(["capacity": 500])
            let credential = try await server.enroll("crash-entrance", store: storeID)
            let config = try writeConfig(
                state: state,
                printer: rig.tcpAddress,
                store: storeID,
                extra: """
                    [sync]
                    server = "http://127.0.0.1:\(proxy.port)"
                    credential_file = "\(try KioskdConfig.credentialFile(credential, in: state))"
                    pull_wait_seconds = 2
                    batch = 3
                    """
            )
            try await crashLoop(rounds: 30, config: config, rig: rig) { pid in
                proxy.killOnPushAnswer(pid, chance: 0.3)
            }
            proxy.killOnPushAnswer(nil)
            let kills = proxy.killsOnAnswer.withLock { $0 }
            #expect(kills >= 5, "only \(kills) of 30 kills fell between a push's commit and its answer")
            let last = try await settle(config: config, rig: rig)
            // Caught up: nothing left to push, and the server's log read back to its end.
            let local = try LocalStore(path: "\(state)/kioskd.sqlite")
            let end = { server.app.logs.store(storeID)?.lastSequence ?? -1 }
            #expect(
                await waitUntil(.seconds(20)) {
                    (try? local.outboxCount()) == 0 && (try? local.lastPulled()) == end()
                },
                "kioskd did not catch up with the server"
            )
            try await stop(last)

            let mine = try local.events().filter { $0.device == "crash-entrance" }
            let log = try await server.app.database.events(store: storeID, after: 0, limit: .max)
            let logged = log.filter { $0.device == "crash-entrance" }
            #expect(logged.count == mine.count, "server has \(logged.count) of the kiosk's \(mine.count) events")
            let sequenceOf = Dictionary(uniqueKeysWithValues: log.map { ($0.id, $0.sequence) })
            #expect(mine.allSatisfy { $0.sequence != nil && sequenceOf[$0.id] == $0.sequence })
            let taken = try checkTickets(in: log, rig: rig)
            let queue = try #require(server.queue(storeID))
            #expect(queue.orphanEvents == 0)
            #expect(Set(queue.waiting.map(\.code.description)) == taken)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    func writeConfig(state: String, printer: String, store: StoreID, extra: String = "") throws -> String {
        try KioskdConfig.write(
            state: state,
            printer: printer,
            store: store,
            device: "crash-entrance",
            zone: StoreTimeZone.fixedName(3600),  // the test store's, as installed
            extra: extra
        )
    }

    /// Starts kioskd and kills it with SIGKILL at a random moment, `rounds` times, while customers take
    /// tickets (and sometimes one while it is down).
    /// `started` is told each new process (e.g. to have it killed elsewhere; the round then ends early).
    func crashLoop(
        rounds: Int,
        config: String,
        rig: EmulatorRig,
        started: (pid_t) -> Void = { _ in }
    ) async throws {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<rounds {
            let process = try start(config: config)
            started(process.processIdentifier)
            let lifetime = Date().addingTimeInterval(Double.random(in: 0.15...0.9, using: &rng))
            while Date() < lifetime, process.isRunning {
                try await Task.sleep(for: .milliseconds(Int.random(in: 20...120, using: &rng)))
                rig.emulator.simulate(.take)
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if Bool.random(using: &rng) { rig.emulator.simulate(.take) }  // a customer while kioskd is down
        }
    }

    /// A last, clean run: it settles what happened while it was down (a ticket waits in the printer again).
    func settle(config: String, rig: EmulatorRig) async throws -> Process {
        let last = try start(config: config)
        #expect(await waitUntil(.seconds(10)) { rig.emulator.activeConditions.contains(.ticketPresent) })
        try await Task.sleep(for: .milliseconds(300))
        return last
    }

    func stop(_ process: Process) async throws {
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(
            process.terminationReason == .exit && process.terminationStatus == 0,
            "kioskd did not stop cleanly on SIGTERM"
        )
    }

    /// Checks a log against the paper: codes issued once each without gaps, each taken at most once, and
    /// taken: every ticket the emulator saw torn off, and otherwise only tickets it never cut.
    /// Returns the codes taken in the log.
    func checkTickets(in events: [StoreEvent], rig: EmulatorRig) throws -> Set<String> {
        let issued = events.compactMap { event -> Ticket? in
            if case .ticketIssued(let ticket, _) = event.body { return ticket }
            return nil
        }
        let numbers = issued.map(\.code.number)
        #expect(!numbers.isEmpty)
        #expect(numbers == Array(1...max(numbers.count, 1)), "codes skipped or repeated: \(numbers)")
        let codeOf = Dictionary(issued.map { ($0.id, $0.code.description) }) { first, _ in first }
        let takenInLog = events.compactMap { event -> String? in
            if case .ticketTaken(let id) = event.body { return codeOf[id] ?? "unknown" }
            return nil
        }
        #expect(Set(takenInLog).count == takenInLog.count, "a ticket was taken twice in the log")
        let takenPhysically = Set(
            rig.emulator.takenTickets.map { $0.text.first { TicketCode($0) != nil } ?? "?" }
        )
        #expect(takenPhysically.count > 20, "too few tear-offs to mean anything: \(takenPhysically.count)")
        let missing = takenPhysically.subtracting(takenInLog)
        #expect(missing.isEmpty, "torn off but not in the log: \(missing)")
        let extra = Set(takenInLog).subtracting(takenPhysically)
        // Killed after a ticket was marked "sending" and before the printer had it all (bytes not yet written,
        // or lost with the connection's reset), with the presenter empty at restart: kioskd cannot tell it from
        // a ticket taken while it was down, and counts it taken (it expires as a no-show; nobody holding a
        // ticket is refused). That ticket was never cut; a ticket that was cut is never counted unless torn off.
        let cut = Set(rig.emulator.tickets.map { $0.text.first { TicketCode($0) != nil } ?? "?" })
        #expect(extra.isDisjoint(with: cut), "cut, never torn off, yet taken: \(extra.intersection(cut))")
        return Set(takenInLog)
    }

    func start(config: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: HIL.kioskd)
        process.arguments = ["run", "--config", config]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    func waitUntil(_ timeout: Duration, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}
