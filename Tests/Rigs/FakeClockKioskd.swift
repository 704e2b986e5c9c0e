import DeviceEmulators
import Foundation
import Glibc
import KioskCore
import ServiceSupport

@testable import KioskStation

/// kioskd as a program of its own under libfaketime (Debian's `faketime`, preloaded), its wall clock shifted by
/// whole seconds (`FAKETIME="+N"`): a test's in-process server shifted by the same seconds
/// (``WallClock/Offset/shift(_:bySeconds:)``) reads the same time. Only the wall clock is faked; timers keep
/// the real monotonic clock. Stopped and started again on the same state, it lives the evening and the next
/// morning.
final class FakeClockKioskd {
    /// The preloaded library: the `faketime` wrapper forks and would not pass SIGTERM on.
    static var library: String? {
        let lib = "/usr/lib"
        let found = (try? FileManager.default.contentsOfDirectory(atPath: lib))?.lazy
            .map { "\(lib)/\($0)/faketime/libfaketime.so.1" }
            .first { FileManager.default.fileExists(atPath: $0) }
        return found ?? (HIL.strict ? "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1" : nil)
    }

    static var ready: Bool { FileManager.default.isExecutableFile(atPath: HIL.kioskd) && library != nil }
    static let skip =
        "needs kioskd built next to the tests and libfaketime (apt-get install faketime; make test does it)"

    let config: String
    let port: Int
    let log: String
    private var process: Process?

    init(config: String, port: Int, state: String) {
        self.config = config
        self.port = port
        log = "\(state)/kioskd.log"
    }

    /// The seconds to shift the clock by so that it reads `time` now.
    static func seconds(to time: Timestamp) -> Int64 {
        time.seconds - Int64(Date().timeIntervalSince1970)
    }

    /// Starts kioskd with its clock `seconds` ahead of the real one (negative: behind).
    func start(shiftedBy seconds: Int64) throws {
        let process = Process()
        // Started through env(1): a Swift program exec'd directly with libfaketime preloaded sees no
        // arguments (it prints its help); one exec'd by a preloaded process sees them.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [HIL.kioskd, "run", "--config", config]
        process.environment = ProcessInfo.processInfo.environment.merging([
            "TZ": "UTC", "LD_PRELOAD": Self.library ?? "", "FAKETIME": seconds < 0 ? "\(seconds)" : "+\(seconds)",
            "FAKETIME_DONT_FAKE_MONOTONIC": "1",
        ]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: log)
        try process.run()
        self.process = process
    }

    /// SIGTERM, and its exit status once it is gone.
    @discardableResult
    func stop() -> Int32 {
        guard let process else { return 0 }
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        self.process = nil
        return process.terminationStatus
    }

    var isRunning: Bool { process?.isRunning ?? false }

    /// The running process's id.
    var pid: pid_t? { process.map(\.processIdentifier) }

    var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "(no log)" }

    func status() async -> StationStatus? { try? await HIL.status(port: port) }

    /// The first status that meets `condition` within `timeout`.
    func until(_ timeout: Duration = .seconds(10), _ condition: (StationStatus) -> Bool) async -> StationStatus? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let s = await status(), condition(s) { return s }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Scans `payload` and returns the door's decision, `reason code`.
    func scan(_ payload: String, on scanner: SerialScannerEmulator) async throws -> String? {
        let before = await status().map { ($0.door?.admitted ?? 0) + ($0.door?.refused ?? 0) } ?? 0
        try scanner.scan(payload)
        let after = await until { ($0.door?.admitted ?? 0) + ($0.door?.refused ?? 0) > before }
        return after?.door?.last.map { "\($0.reason) \($0.code ?? "-")" }
    }

    /// The door's last message (what the customer reads).
    func lastMessage() async -> String? { await status()?.door?.last?.message }
}

extension WallClock.Offset {
    /// Shifts `clock` (shifted by this offset) to read `seconds` ahead of the real clock, as kioskd under
    /// ``FakeClockKioskd`` with the same seconds does.
    func shift(_ clock: WallClock, bySeconds seconds: Int64) {
        advance(by: .seconds(seconds) - (clock.now() - WallClock.system.now()))
    }
}
