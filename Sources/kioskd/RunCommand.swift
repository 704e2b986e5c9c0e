import ArgumentParser
import Drivers
import Foundation
import KioskStation
import Logging
import ServiceSupport

/// `kioskd run --config /etc/kioskd/kioskd.toml`: the daemon. SIGTERM or SIGINT stop it cleanly.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the kiosk: the printer and door roles, sync and the local HTTP endpoint (systemd: Type=notify)."
    )

    @Option(help: "Configuration file.")
    var config = "/etc/kioskd/kioskd.toml"

    func run() async throws {
        HeapTrim.limitArenas(2)  // before any thread of ours allocates
        let settings: KioskConfig
        do {
            settings = try KioskConfig.load(path: config)
        } catch {
            FileHandle.standardError.write(Data("kioskd: \(error)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG: systemd does not restart on a broken configuration loop.
        }
        // The package's configuration as shipped: the store is not set yet (checked here, not when parsing:
        // `kioskd devices` and the tests read the shipped file as it is).
        guard settings.store.id != KioskConfig.placeholderStore else {
            FileHandle.standardError.write(
                Data(
                    ("kioskd: \(config): [store] id is the shipped placeholder (all zeros) — set it to the store's "
                        + "id (the console's enrolment snippet has it), then start kioskd again\n").utf8
                )
            )
            throw ExitCode(78)
        }
        do {
            try PortProbe.check(host: settings.http.host, port: settings.http.port, setting: "[http] port in \(config)")
        } catch {
            // Not EX_CONFIG: the port may be freed in a moment, and systemd then tries again.
            FileHandle.standardError.write(Data("kioskd: \(error)\n".utf8))
            throw ExitCode.failure
        }
        unblockStopSignals()
        let logger = KeyValueLogHandler.bootstrap(program: "kioskd", level: settings.logLevel)
        let kiosk = try Kiosk.build(config: settings, logger: logger)
        logger.notice(
            "kioskd starting",
            metadata: ["store": "\(settings.store.name)", "device": "\(settings.device.id)"]
        )
        // Loops turn every 2 s at most when idle, but one turn can send a whole ticket: a raster QR at 9600 baud
        // takes 12 s. 20 s of silence means a loop is stuck (the unit's WatchdogSec=30s leaves room for it).
        let systemd = SystemdSupervision(
            logger: logger,
            ready: { kiosk.loopsStarted },
            healthy: { kiosk.stuckLoop(limit: .seconds(20)) }
        )
        try await kiosk.serviceGroup(logger: logger, extra: [systemd, HeapTrim()]).run()
        // Stopped by a database found damaged while running: systemd starts kioskd again (Restart=on-failure),
        // and that start sets the file aside.
        if kiosk.store.damageSeen != nil { throw ExitCode(75) }
    }
}
