import DeviceEmulators
import Drivers
import Foundation
import KioskCore
import Logging
import ServiceLifecycle
import ServiceSupport
import Testing

@testable import KioskStation

/// The printer station running in-process against the emulator on a real interface (TCP or a pty).
final class StationRig {
    let printerRig: EmulatorRig
    let kiosk: Kiosk
    let group: ServiceGroup
    let task: Task<Void, any Error>
    let state: String

    static let store = UUID(uuidString: "6F1D5C2E-3B8A-4E61-9C7D-2A5B8E4F1C90")!

    /// Runs `body` with a fresh station and stops it afterwards, whatever happened.
    static func with(
        profile: String,
        transport: String = "tcp",
        _ body: (StationRig) async throws -> Void
    ) async throws {
        let rig = try StationRig(profile: profile, transport: transport)
        do {
            try await body(rig)
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    init(
        profile: String,
        transport: String = "tcp",
        clock: WallClock = .system,
        profileDirectories: [String] = [],
        configure: (inout KioskConfig) -> Void = { _ in }
    ) throws {
        printerRig = try EmulatorRig(profile: profile, directories: profileDirectories)
        state = HIL.temporaryDirectory("station")
        var config = KioskConfig(store: .init(id: Self.store))
        config.store.name = "Test Market"
        config.device.id = "test-entrance"
        config.device.stateDirectory = state
        config.printer.address =
            transport == "tcp" ? printerRig.tcpAddress : "serial://\(printerRig.pty.path)?baud=115200"
        config.printer.profile = profile
        config.printer.profileDirectories = profileDirectories
        config.printer.pollInterval = .milliseconds(20)
        config.printer.debounce = .milliseconds(10)
        config.http.port = 0
        configure(&config)
        var logger = Logger(label: "station")
        logger.logLevel =
            ProcessInfo.processInfo.environment["CLUP_STATION_LOG"].flatMap { Logger.Level(rawValue: $0) } ?? .warning
        kiosk = try Kiosk.build(config: config, logger: logger, clock: clock)
        let group = kiosk.serviceGroup(logger: logger, handleSignals: false)
        self.group = group
        task = Task { try await group.run() }
    }

    var emulator: PrinterEmulator { printerRig.emulator }
    var station: PrinterStation { kiosk.printer! }

    /// Polls `condition` every 5 ms until it holds; returns how long that took, or nil after `timeout`.
    /// Sleeps with `Task.sleep`, so waiting never blocks a thread of the cooperative pool.
    @discardableResult
    func wait(_ timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Duration? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < timeout {
            if condition() { return ContinuousClock.now - start }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    /// Scans `payload` on `scanner` and waits for this kiosk's door to decide; returns "reason code", e.g.
    /// "admit A001" or "store_full A004" ("-" when the scan names no known ticket).
    func scan(_ payload: String, on scanner: SerialScannerEmulator) async throws -> String? {
        let door = try #require(kiosk.door)
        let before = door.status.admitted + door.status.refused
        try scanner.scan(payload)
        // Nothing decided within the wait (a door that believes no clock decides nothing): nil, not the last
        // decision again.
        let decided = await wait(.seconds(10)) { door.status.admitted + door.status.refused > before }
        guard decided != nil else { return nil }
        return door.status.last.map { "\($0.reason) \($0.code ?? "-")" }
    }

    /// Waits until the emulator cut `count` tickets in all.
    func tickets(_ count: Int, timeout: Duration = .seconds(10)) async -> [PrintedTicket]? {
        await wait(timeout) { emulator.ticketCount >= count } != nil ? emulator.tickets : nil
    }

    /// A customer takes the ticket from the presenter: not within a millisecond of the cut, as a test
    /// thread could, but after it came out (50-120 ms later; people take seconds).
    func customerTakes() async {
        try? await Task.sleep(for: .milliseconds(Int.random(in: 50...120)))
        emulator.simulate(.take)
    }

    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    /// The tickets once `count` were cut, or an error saying how far printing got and what the station says.
    @discardableResult
    func requireTickets(_ count: Int, timeout: Duration = .seconds(10)) async throws -> [PrintedTicket] {
        if let tickets = await tickets(count, timeout: timeout) { return tickets }
        throw Missing(
            description: "only \(emulator.ticketCount) of \(count) tickets after \(timeout); station: \(station.status)"
        )
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        printerRig.stop()
        try? FileManager.default.removeItem(atPath: state)
    }

    /// The public key this station signs with (from its database).
    func keyRing() throws -> KeyRing {
        KeyRing([try kiosk.store.signingKey().publicKey])
    }
}
