import DeviceEmulators
import Foundation
import Glibc
import KioskCore
import Testing

@testable import KioskStation
@testable import Rigs

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// kioskd itself across a night, under libfaketime (Debian's `faketime`): run in the evening, stopped, started
/// again the next morning with yesterday's state on disk. The new day starts with nobody inside and nobody
/// waiting, yesterday's waiting ticket is refused as yesterday's, the ticket that waited in the printer overnight
/// gets in, and numbers restart at 001.
@Suite(.serialized) struct FakeClockTests {
    /// Debian's libfaketime (package `faketime`), preloaded: the `faketime` wrapper forks and would not pass
    /// SIGTERM on.
    static var library: String? {
        let lib = "/usr/lib"
        let found = (try? FileManager.default.contentsOfDirectory(atPath: lib))?.lazy
            .map { "\(lib)/\($0)/faketime/libfaketime.so.1" }
            .first { FileManager.default.fileExists(atPath: $0) }
        return found ?? (HIL.strict ? "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1" : nil)
    }

    static var ready: Bool { FileManager.default.isExecutableFile(atPath: HIL.kioskd) && library != nil }

    @Test(
        .enabled(
            if: ready,
            "needs kioskd built next to the tests and libfaketime (apt-get install faketime; make test does it)"
        )
    )
    func theNextMorningUnderAFakeClock() async throws {
        // A presenter that cannot retract: the ticket left in it overnight stays (RetractTests and
        // BadDaySyncTests have the one that can).
        let profiles = try HIL.profileWithoutRetract("custom-vkp80iii")
        defer { try? FileManager.default.removeItem(atPath: profiles) }
        let rig = try EmulatorRig(profile: "custom-vkp80iii", directories: [profiles])
        defer { rig.stop() }
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        let state = HIL.temporaryDirectory("fake-clock")
        defer { try? FileManager.default.removeItem(atPath: state) }
        let port = try HIL.freePort()
        let config = try KioskdConfig.write(
            state: state,
            printer: rig.tcpAddress,
            store: StationRig.store,
            device: "entrance",
            httpPort: port,
            store: """
                capacity = 3
                opening_time = "07:00"
                """,
            printer: "profile_directories = [\"\(profiles)\"]",
            extra: """
                [door]
                enabled = true
                scanner = "serial://\(scanner.path)"
                """
        )

        /// kioskd's log, for a failure's message.
        let log = "\(state)/kioskd.log"
        func start(at time: String) throws -> Process {
            let process = Process()
            // Started through env(1): a Swift program exec'd directly with libfaketime preloaded sees no
            // arguments (it prints its help); one exec'd by a preloaded process sees them.
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [HIL.kioskd, "run", "--config", config]
            // The store's clock in UTC; only the wall clock is faked (timers keep the real monotonic clock).
            process.environment = ProcessInfo.processInfo.environment.merging([
                "TZ": "UTC", "LD_PRELOAD": Self.library ?? "", "FAKETIME": "@\(time)",
                "FAKETIME_DONT_FAKE_MONOTONIC": "1",
            ]) { $1 }
            process.standardOutput = FileHandle.nullDevice
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: log)
            try process.run()
            return process
        }
        func kioskdLog() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "(no log)" }
        func status() async -> StationStatus? { try? await HIL.status(port: port) }
        func until(_ timeout: Duration = .seconds(10), _ condition: (StationStatus) -> Bool) async -> StationStatus? {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if let s = await status(), condition(s) { return s }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return nil
        }
        func scan(_ payload: String) async throws -> String? {
            let before = await status().map { ($0.door?.admitted ?? 0) + ($0.door?.refused ?? 0) } ?? 0
            try scanner.scan(payload)
            let after = await until { ($0.door?.admitted ?? 0) + ($0.door?.refused ?? 0) > before }
            return after?.door?.last.map { "\($0.reason) \($0.code ?? "-")" }
        }
        func stop(_ process: Process) {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }

        // The evening: six tickets torn off, three let in (capacity 3).
        let evening = try start(at: "2026-11-23 21:50:00")
        do {
            for n in 1...6 {
                _ = try await requireTickets(rig, n)
                try await Task.sleep(for: .milliseconds(60))
                rig.emulator.simulate(.take)
            }
            let tickets = try await requireTickets(rig, 7)
            #expect(await until { $0.door?.state == "ready" && $0.queue.waiting == 6 } != nil)
            for n in 0..<3 { #expect(try await scan(tickets[n].qrCodes[0]) == "admit A00\(n + 1)") }
            #expect(try await scan(tickets[3].qrCodes[0]) == "store_full A004")
        } catch {
            let exit = evening.isRunning ? "running" : "exited \(evening.terminationStatus)"
            stop(evening)
            Issue.record("kioskd (\(exit)), its log in the evening:\n\(kioskdLog())")
            throw error
        }
        stop(evening)
        let tickets = rig.emulator.tickets

        // 08:05 the next morning, started again on the same state.
        let morning = try start(at: "2026-11-24 08:05:00")
        do {
            let fresh = await until { $0.queue.inside == 0 && $0.queue.waiting == 0 && $0.door?.state == "ready" }
            let seen = await status()
            #expect(fresh != nil, "the morning still shows yesterday: \(String(describing: seen?.queue))")
            #expect(try await scan(tickets[3].qrCodes[0]) == "previous_day A004")
            // The ticket that waited in the printer overnight (this printer cannot retract it) gets in.
            #expect(try await scan(tickets[6].qrCodes[0]) == "admit A007")
            rig.emulator.simulate(.take)
            let next = try await requireTickets(rig, 8)
            #expect(next[7].text.contains { $0.contains("A001") }, "numbers did not restart: \(next[7].text)")
            #expect(await until { $0.queue.inside == 1 } != nil)
        } catch {
            stop(morning)
            Issue.record("kioskd's log in the morning:\n\(kioskdLog())")
            throw error
        }
        stop(morning)
        #expect(morning.terminationStatus == 0)
    }

    func requireTickets(_ rig: EmulatorRig, _ count: Int) async throws -> [PrintedTicket] {
        let deadline = ContinuousClock.now + .seconds(10)
        while rig.emulator.ticketCount < count && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        try #require(rig.emulator.ticketCount >= count, "only \(rig.emulator.ticketCount) of \(count) tickets")
        return rig.emulator.tickets
    }
}
