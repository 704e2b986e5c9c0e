import DeviceEmulators
import Foundation
import KioskCore
import Testing

/// An entrance for kioskd under libfaketime (``FakeClockKioskd``), stopped and started again on the same state:
/// the printer emulator with a presenter that cannot retract (the ticket left in it across a restart stays), a
/// serial scanner at the door, and kioskd's configuration in a state directory of its own.
final class FakeClockEntrance {
    let rig: EmulatorRig
    let scanner: SerialScannerEmulator
    let kioskd: FakeClockKioskd
    private let profiles: String
    private let state: String

    /// `store`: the lines of kioskd's `[store]` beyond its id.
    init(_ name: String, store: String, logLevel: String = "error") throws {
        profiles = try HIL.profileWithoutRetract("custom-vkp80iii")
        rig = try EmulatorRig(profile: "custom-vkp80iii", directories: [profiles])
        scanner = try SerialScannerEmulator(suffix: .cr)
        state = HIL.temporaryDirectory(name)
        let port = try HIL.freePort()
        let config = try KioskdConfig.write(
            state: state,
            printer: rig.tcpAddress,
            store: StationRig.store,
            device: "entrance",
            httpPort: port,
            store: store,
            printer: "profile_directories = [\"\(profiles)\"]",
            extra: """
                [door]
                enabled = true
                scanner = "serial://\(scanner.path)"
                """,
            logLevel: logLevel
        )
        kioskd = FakeClockKioskd(config: config, port: port, state: state)
    }

    /// Runs `body` against the running kioskd; if it throws, kioskd is stopped and its log recorded, `when` it was.
    func running(_ when: String, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            let running = kioskd.isRunning
            kioskd.stop()
            Issue.record("kioskd (\(running ? "running" : "exited")), its log \(when):\n\(kioskd.logText)")
            throw error
        }
    }

    func stop() {
        kioskd.stop()
        scanner.close()
        rig.stop()
        try? FileManager.default.removeItem(atPath: state)
        try? FileManager.default.removeItem(atPath: profiles)
    }
}
