import Foundation
import Hummingbird
import KioskCore
import Logging
import NIOCore
import ServiceLifecycle
import ServiceSupport
import StationStore
import SyncWire

/// The kiosk's services, built from its configuration: what `kioskd run` runs and what tests start.
public struct Kiosk: Sendable {
    public let config: KioskConfig
    public let store: LocalStore
    public let queue: QueueReplica
    public let printer: PrinterStation?
    public let door: DoorStation?
    public let sync: SyncClient?
    public let voice: Voice?
    public let services: [any Service]
    public let metrics: StationMetrics
    /// The HTTP port once the server listens (useful with port 0).
    public let httpPort: ListeningPort
}

extension Kiosk {
    /// Opens the state directory and database and builds the services; nothing runs until they are.
    /// `clock` is what the stations take as now (tests shift it; see ``WallClock``).
    public static func build(config: KioskConfig, logger: Logger, clock: WallClock = .system) throws -> Kiosk {
        do {
            try FileManager.default.createDirectory(
                atPath: config.device.stateDirectory,
                withIntermediateDirectories: true
            )
        } catch {
            throw LocalStore.StoreError(
                description: "\(config.device.stateDirectory): cannot create the state directory (\(error)) — "
                    + "create it for the kiosk user or set [device] state_directory"
            )
        }
        let (store, damage) = try LocalStore.open(directory: config.device.stateDirectory)
        if let damage {
            logger.critical("\(damage.sentence)", metadata: ["kept_as": "\(damage.keptAs ?? "-")"])
        }
        let changes = ChangeFeed()
        let metrics = StationMetrics()
        let queue = try QueueReplica(store: store, capacity: config.store.capacity, changes: changes)
        let clockWatch = ClockWatch(
            clock: clock,
            logger: logger,
            floor: try store.lastEventTime(of: config.device.id)
        )
        let days = BusinessDayKeeper(
            config: config,
            store: store,
            queue: queue,
            clock: clock,
            logger: logger,
            clockWatch: clockWatch
        )
        let voice =
            config.voice.enabled
            ? Voice(
                config: config.voice,
                languages: { [schedule = days.schedule] in schedule.languages },
                volume: { [schedule = days.schedule] in schedule.voiceVolume },
                logger: logger,
                changes: changes,
                metrics: metrics
            ) : nil
        let context = StationContext(
            config: config,
            store: store,
            queue: queue,
            logger: logger,
            changes: changes,
            clock: clock,
            metrics: metrics,
            days: days,
            voice: voice
        )
        let calls = CallBoard(queue: queue, days: days, clock: clock, changes: changes, voice: voice)
        let printer = config.printer.enabled ? PrinterStation(context) : nil
        let door = config.door.enabled ? try DoorStation(context) : nil
        let sync =
            config.sync.enabled
            ? try SyncClient(
                config: config,
                store: store,
                queue: queue,
                logger: logger,
                clock: clock,
                schedule: days.schedule,
                clockWatch: clockWatch,
                health: { [printer, door, voice, queue, rollTickets = config.printer.rollTickets] in
                    let printed = printer?.status
                    let entrance = door?.status
                    return KioskHealth(
                        version: KioskStation.version,
                        printer: printed.map(KioskHealth.printerState),
                        door: entrance?.state,
                        ticketsSincePaperLoad: printed?.ticketsSincePaperLoad,
                        ticketsLeft: rollTickets.flatMap { roll in
                            printed.map { max(roll - $0.ticketsSincePaperLoad, 0) }
                        },
                        pendingEvents: queue.pendingCount,
                        light: entrance?.lights.map { $0 == .ready ? "ready" : "unavailable" },
                        voice: voice?.status.state
                    )
                },
                onKeyRingChanged: {
                    do {
                        try door?.reloadKeyRing()
                    } catch {
                        logger.error("cannot reload the key ring", metadata: ["error": "\(error)"])
                    }
                }
            ) : nil
        let port = ListeningPort()
        if config.http.managerPassword == nil, !KioskConfig.isLoopback(host: config.http.host) {
            logger.notice(
                "the manager page's buttons work only on this box: for a manager's tablet, set [http] manager_password"
            )
        }
        let app = Application(
            router: StationHTTP.router(
                config: config,
                printer: printer,
                door: door,
                sync: sync,
                voice: voice,
                calls: calls,
                queue: queue,
                changes: changes,
                metrics: metrics,
                schedule: days.schedule,
                clockWatch: clockWatch,
                damage: damage,
                clock: clock
            ),
            configuration: .init(address: .hostname(config.http.host, port: config.http.port), serverName: "kioskd"),
            onServerRunning: { channel in port.set(channel.localAddress?.port ?? config.http.port) },
            logger: logger
        )
        var services: [any Service] = [days, calls]
        if let voice { services.append(voice) }
        if let printer { services.append(printer) }
        if let door { services.append(door) }
        if let sync { services.append(sync) }
        services.append(app)
        return Kiosk(
            config: config,
            store: store,
            queue: queue,
            printer: printer,
            door: door,
            sync: sync,
            voice: voice,
            services: services,
            metrics: metrics,
            httpPort: port
        )
    }

    /// A service group running every service, stopping them all on SIGTERM or SIGINT (`handleSignals`);
    /// `extra` run beside them (e.g. ``SystemdSupervision``). A database found damaged while running
    /// (``LocalStore/onDamage(_:)``) stops the group too: kioskd then exits 75 and systemd starts it again, on a
    /// new database.
    public func serviceGroup(logger: Logger, handleSignals: Bool = true, extra: [any Service] = []) -> ServiceGroup {
        let group = ServiceGroup(running: services + extra, logger: logger, handleSignals: handleSignals)
        store.onDamage { message in
            logger.critical(
                "the kiosk's database is damaged (\(message)): kioskd stops, and starts again on a new one",
                metadata: ["database": "\(store.path)"]
            )
            Task { await group.triggerGracefulShutdown() }
        }
        return group
    }

    /// The device loops' signs of life, by name.
    var heartbeats: [(name: String, heartbeat: Heartbeat)] {
        [printer.map { ("printer", $0.heartbeat) }, door.map { ("scanner", $0.heartbeat) }].compactMap { $0 }
    }

    /// Every device loop made its first attempt (a device connected, or its state reported): what systemd
    /// is told as READY.
    public var loopsStarted: Bool { heartbeats.allSatisfy { $0.heartbeat.age != nil } }

    /// nil when every device loop turned within `limit`, else which has not (a call that never returned).
    public func stuckLoop(limit: Duration) -> String? {
        for (name, heartbeat) in heartbeats {
            if let age = heartbeat.age, age > limit { return "\(name) loop silent for \(age)" }
        }
        return nil
    }
}
