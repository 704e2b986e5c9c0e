import DeviceEmulators
import Drivers
import Foundation
import KioskCore
import Logging
import Testing

@testable import KioskStation

/// kill -9 of kioskd at random moments, 50 times, while customers take tickets (some while it is down):
/// afterwards no code was issued twice or skipped, and every torn-off ticket is in the queue.
@Suite(.serialized) struct CrashTests {
    static var kioskd: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("kioskd").path
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: kioskd), "kioskd is not built next to the tests"))
    func killNineFiftyTimes() async throws {
        let rig = try EmulatorRig(profile: "custom-vkp80iii")
        defer { rig.stop() }
        let state = HIL.temporaryDirectory("crash")
        defer { try? FileManager.default.removeItem(atPath: state) }
        let config = "\(state)/kioskd.toml"
        try """
        [store]
        id = "6F1D5C2E-3B8A-4E61-9C7D-2A5B8E4F1C90"
        name = "Crash Test Market"
        [device]
        id = "crash-entrance"
        state_directory = "\(state)"
        [printer]
        address = "\(rig.tcpAddress)"
        profile = "custom-vkp80iii"
        poll_interval_ms = 20
        debounce_ms = 10
        [http]
        port = 0
        [log]
        level = "error"
        """.write(toFile: config, atomically: true, encoding: .utf8)

        var rng = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let process = try start(config: config)
            let lifetime = Date().addingTimeInterval(Double.random(in: 0.15...0.9, using: &rng))
            while Date() < lifetime {
                try await Task.sleep(for: .milliseconds(Int.random(in: 20...120, using: &rng)))
                rig.emulator.simulate(.take)
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if Bool.random(using: &rng) { rig.emulator.simulate(.take) }  // a customer while kioskd is down
        }
        // A last, clean run: it settles what happened while it was down, then SIGTERM stops it.
        let last = try start(config: config)
        #expect(await waitUntil(.seconds(10)) { rig.emulator.activeConditions.contains(.ticketPresent) })
        try await Task.sleep(for: .milliseconds(300))
        kill(last.processIdentifier, SIGTERM)
        last.waitUntilExit()
        #expect(
            last.terminationReason == .exit && last.terminationStatus == 0,
            "kioskd did not stop cleanly on SIGTERM"
        )

        let store = try LocalStore(path: "\(state)/kioskd.sqlite")
        let events = try store.events()
        let issued = events.compactMap { event -> Ticket? in
            if case .ticketIssued(let ticket) = event.body { return ticket }
            return nil
        }
        let numbers = issued.map(\.code.number)
        #expect(!numbers.isEmpty)
        #expect(numbers == Array(1...numbers.count), "codes skipped or repeated: \(numbers)")
        let codeOf = Dictionary(uniqueKeysWithValues: issued.map { ($0.id, $0.code.description) })
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
        let extra = Set(takenInLog).subtracting(takenPhysically)
        #expect(takenPhysically == Set(takenInLog), "torn off but not in the log: \(missing); never torn off: \(extra)")
        let queue = QueueState(capacity: 50, events: events)
        #expect(queue.orphanEvents == 0)
        #expect(Set(queue.waiting.map(\.code.description)) == takenPhysically)
    }

    func start(config: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.kioskd)
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
