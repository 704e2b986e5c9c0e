import ArgumentParser
import Drivers
import Foundation
import KioskStation
import Logging
import ServiceLifecycle
import ServiceSupport
import SyncWire

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
        var settings: KioskConfig
        do {
            settings = try KioskConfig.load(path: config)
            // A server and no credential: the pairing this box kept, if any (``PairedKiosk``).
            if settings.sync.pairs, let kept = try PairedKiosk.read(for: settings) {
                settings = kept.applied(to: settings)
            }
        } catch {
            FileHandle.standardError.write(Data("kioskd: \(error)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG: systemd does not restart on a broken configuration loop.
        }
        // The package's configuration as shipped: the store is not set yet (checked here, not when parsing:
        // `kioskd devices` and the tests read the shipped file as it is).
        guard settings.store.id != KioskConfig.placeholderStore || settings.sync.pairs else {
            FileHandle.standardError.write(
                Data(
                    ("kioskd: \(config): [store] id is the shipped placeholder (all zeros) — set [sync] server to "
                        + "pair this kiosk by a printed code, or set the store's id (the console's enrolment "
                        + "snippet has it), then start kioskd again\n").utf8
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
        var paired: Paired?
        if settings.sync.pairs {
            guard let given = try await pair(settings, logger: logger) else { return }  // stopped while pairing
            settings = PairedKiosk(server: settings.sync.server, paired: given).applied(to: settings)
            paired = given
        }
        let kiosk = try Kiosk.build(config: settings, logger: logger)
        if let paired {
            do { try kiosk.store.adoptRing(of: paired, at: WallClock.system.now()) } catch {
                logger.warning(
                    "cannot cache the key ring pairing gave: the first sync brings it",
                    metadata: ["error": "\(error)"]
                )
            }
        }
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

    /// Pairs this box (``KioskPairer``) under systemd's eye (ready at once, so the unit's start does not time out
    /// while nobody types the code; the watchdog pinged); keeps the pairing. Nil when stopped first.
    private func pair(_ settings: KioskConfig, logger: Logger) async throws -> Paired? {
        let shown = PairingPage.Shown()
        let pairing = PairingService(pairer: KioskPairer(config: settings, logger: logger, show: shown.set))
        var group = ServiceGroupConfiguration(
            services: [
                .init(service: pairing, successTerminationBehavior: .gracefullyShutdownGroup),
                .init(service: PairingPage.application(config: settings, shown: shown, logger: logger)),
                .init(service: SystemdSupervision(logger: logger, ready: { true })),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        group.maximumGracefulShutdownDuration = ServiceGroup.gracefulShutdownLimit
        do { try await ServiceGroup(configuration: group).run() } catch {
            if pairing.paired == nil { return nil }
        }
        guard let paired = pairing.paired else { return nil }
        do {
            try PairedKiosk(server: settings.sync.server, paired: paired).write(for: settings)
        } catch {
            logger.critical("\(error)")
            throw ExitCode(73)  // EX_CANTCREAT
        }
        return paired
    }
}
