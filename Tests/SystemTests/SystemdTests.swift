import Foundation
import Logging
import ServiceLifecycle
import ServiceSupport
import Synchronization
import Testing

@testable import Rigs

/// The systemd units (systemd/) and the daemons' side of `Type=notify`: the units pass
/// `systemd-analyze verify` with an exposure of at most 2.0, kioskd says READY once its device loops have
/// started and pings the watchdog, and the pings stop while a loop is stuck.
@Suite(.serialized) struct SystemdTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    @Test(
        .enabled(if: HIL.needs("systemd-analyze"), "systemd-analyze not installed (apt-get install systemd)"),
        arguments: [("kioskd.service", "kioskd"), ("clup-server.service", "clup-server")]
    )
    func unitsVerifyAndAreHardened(unit: String, binary: String) throws {
        let directory = HIL.temporaryDirectory("units")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The unit as installed, but starting the binary of this build (verify checks that it exists).
        let built = URL(fileURLWithPath: HIL.kioskd).deletingLastPathComponent().appendingPathComponent(binary)
        let text = try String(contentsOfFile: "\(Self.repository)/systemd/\(unit)", encoding: .utf8)
            .replacingOccurrences(of: "/usr/bin/\(binary)", with: built.path)
        try text.write(toFile: "\(directory)/\(unit)", atomically: true, encoding: .utf8)

        let verify = try HIL.run("systemd-analyze", ["verify", "--man=no", "\(directory)/\(unit)"])
        let said = verify.output + verify.error
        #expect(verify.status == 0, "\(said)")
        #expect(!said.contains(unit), "systemd-analyze verify: \(said)")

        let security = try HIL.run("systemd-analyze", ["security", "--offline=true", "\(directory)/\(unit)"])
        let report = (security.output + security.error).split(separator: "\n")
        let line = try #require(report.last { $0.contains("Overall exposure level") })
        let exposure = try #require(
            line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
        )
        #expect(exposure <= 2.0, "\(line)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: HIL.kioskd), "kioskd is not built"))
    func kioskdSaysReadyAndPingsTheWatchdog() async throws {
        let rig = try EmulatorRig(profile: "custom-vkp80iii")
        defer { rig.stop() }
        let state = HIL.temporaryDirectory("notify")
        defer { try? FileManager.default.removeItem(atPath: state) }
        let socket = try NotifySocket(directory: state)
        let config = try CrashTests().writeConfig(state: state, printer: rig.tcpAddress, store: StationRig.store)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: HIL.kioskd)
        process.arguments = ["run", "--config", config]
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = socket.path
        environment["WATCHDOG_USEC"] = "400000"  // a ping every 0.2 s
        process.environment = environment
        process.standardError = FileHandle.nullDevice
        try process.run()

        let first = await socket.next(timeout: .seconds(15))
        #expect(first?.contains("READY=1") == true, "first notification: \(first ?? "none")")
        // Ready means the printer loop made its first attempt: here, a ticket is on its way or printed.
        #expect(await CrashTests().waitUntil(.seconds(10)) { rig.emulator.ticketCount >= 1 })
        let pings = await socket.collect(for: .seconds(1.5)).filter { $0 == "WATCHDOG=1" }
        #expect(pings.count >= 4, "\(pings.count) watchdog pings in 1.5 s")

        kill(process.processIdentifier, SIGTERM)
        let last = await socket.collect(for: .seconds(2))
        #expect(last.contains("STOPPING=1"), "\(last)")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    /// A loop that stops turning stops the pings (systemd then restarts the daemon); they resume when it turns.
    @Test func theWatchdogIsOnlyPingedWhileTheLoopsTurn() async throws {
        let directory = HIL.temporaryDirectory("watchdog")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = try NotifySocket(directory: directory)
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "200000"])
        let stuck = Mutex<String?>(nil)
        let heartbeat = Heartbeat()
        let supervision = SystemdSupervision(
            notifier: notifier,
            logger: Logger(label: "test"),
            ready: { heartbeat.age != nil },
            healthy: { stuck.withLock { $0 } }
        )
        let group = ServiceGroup(running: [supervision], logger: Logger(label: "test"), handleSignals: false)
        let task = Task { try await group.run() }

        #expect(await socket.collect(for: .milliseconds(300)).isEmpty)  // not ready: nothing said
        heartbeat.beat()
        #expect(await socket.next(timeout: .seconds(2))?.contains("READY=1") == true)
        #expect(await socket.collect(for: .seconds(1)).filter { $0 == "WATCHDOG=1" }.count >= 5)
        stuck.withLock { $0 = "printer loop silent for 6 s" }
        let turning = await socket.collect(for: .milliseconds(150))  // and what was sent before
        let whileStuck = await socket.collect(for: .seconds(1))
        #expect(!whileStuck.contains("WATCHDOG=1"), "\(whileStuck)")
        #expect((turning + whileStuck).contains { $0.hasPrefix("STATUS=stuck") })
        stuck.withLock { $0 = nil }
        #expect(await socket.collect(for: .seconds(1)).filter { $0 == "WATCHDOG=1" }.count >= 3)

        await group.triggerGracefulShutdown()
        _ = try? await task.value
        #expect(await socket.collect(for: .milliseconds(300)).contains("STOPPING=1"))
    }
}
