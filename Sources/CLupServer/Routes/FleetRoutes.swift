import Foundation
import Hummingbird
import KioskCore
import Prometheus
import SyncWire

/// The fleet's health: each kiosk reports how it is (`PUT /v1/devices/self/health`, its credential),
/// `GET /v1/devices` lists every store's kiosks for the system manager, filtered by version or problem, and
/// `GET /metrics` (the system manager's token, as a Prometheus scrape job's bearer token) exports every
/// kiosk's state for alerting — the rules ship in packaging/prometheus/clup-fleet-rules.yml.
struct FleetRoutes {
    let auth: Authenticator
    let directory: StoreDirectory
    let lease: DutyLease
    let fleet: Fleet

    func register(on router: some RouterMethods<ServerContext>) {
        router.put("v1/devices/self/health") { request, _ -> Response in
            let kiosk = try await auth.requireDevice(request)
            let (store, device) = (kiosk.store, kiosk.device)
            let health = try await request.decode(KioskHealth.self, limit: 4 << 10)
            if let problem = health.problem { throw Refusal.invalid(problem.allowed, field: problem.field) }
            auth.contacts.report(health, from: device, of: store, at: directory.clock.now())
            return Response(status: .noContent)
        }
        router.get("v1/devices") { request, context -> StoreRoutes.Devices in
            try await auth.requireAdmin(request, from: context.remoteAddress)
            let query = request.uri.queryParameters
            let (version, problem) = try Fleet.filter(
                version: query["version"].map(Fleet.formDecoded),
                problem: query["problem"].map(Fleet.formDecoded)
            )
            return StoreRoutes.Devices(devices: try await fleet.kiosks(of: nil, version: version, problem: problem))
        }
        router.get("metrics") { request, context -> Response in
            try await auth.requireAdmin(request, from: context.remoteAddress)
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: .init(
                    byteBuffer: ByteBuffer(
                        string: FleetMetrics.exposition(
                            auth.contacts,
                            directory: directory,
                            lease: lease,
                            oldestProtocol: fleet.oldestProtocol
                        )
                            + directory.estimates.exposition() + ReplicaMetrics.registry.emitToString()
                    )
                )
            )
        }
    }
}

/// The fleet's gauges, computed at each scrape from what the kiosks reported (never stale counters).
enum FleetMetrics {
    static func exposition(
        _ contacts: DeviceContacts,
        directory: StoreDirectory,
        lease: DutyLease,
        oldestProtocol: Int
    ) -> String {
        let registry = PrometheusCollectorRegistry()
        let now = directory.clock.now()
        gauge(
            registry,
            "replica_duty_lease_held",
            "1 when this replica runs the background duties (no-show expiry, day start); one replica of a fleet.",
            lease.isHeld ? 1 : 0,
            labels: []
        )
        for live in directory.all {
            let store = live.record.id.uuidString.lowercased()
            gauge(
                registry,
                "store_inside",
                "People inside the store now, as the server's log says.",
                Double(live.state.inside),
                labels: [("store", store)]
            )
            gauge(
                registry,
                "store_waiting",
                "Tickets waiting in the store's line now.",
                Double(live.state.waitingCount),
                labels: [("store", store)]
            )
        }
        for (storeID, device, seen) in contacts.all() {
            let labels = [("store", storeID.uuidString.lowercased()), ("device", device)]
            gauge(
                registry,
                "kiosk_seconds_since_contact",
                "Seconds since the kiosk last called the server.",
                Double(max(now - seen.at, .zero).components.seconds),
                labels: labels
            )
            if let spoken = seen.syncProtocol {
                gauge(
                    registry,
                    "kiosk_too_old",
                    "1 while the kiosk speaks a sync protocol older than this server serves (426: update kioskd).",
                    spoken < oldestProtocol ? 1 : 0,
                    labels: labels
                )
            }
            if let offset = seen.clockOffset {
                gauge(
                    registry,
                    "kiosk_clock_offset_seconds",
                    "The kiosk's clock less this server's at its last report.",
                    Double(offset.components.seconds),
                    labels: labels
                )
            }
            guard let health = seen.health else { continue }
            let sync = [
                (
                    "kiosk_quarantined_events", "Events the server refused for good, set aside on the kiosk.",
                    health.quarantined
                ),
                (
                    "kiosk_newer_events", "Events of a newer clup-server in the kiosk's log: update kioskd.",
                    health.newerEvents
                ),
            ]
            for case (let name, let help, let count?) in sync {
                gauge(registry, name, help, Double(count), labels: labels)
            }
            // One series per state, 1 for the one reported: alert rules match the state by label.
            let machines = [
                ("kiosk_printer_state", "printer", health.printer, KioskHealth.printerStates),
                ("kiosk_door_state", "door scanner", health.door, KioskHealth.doorStates),
            ]
            for case (let name, let part, let reported?, let states) in machines {
                for state in states {
                    gauge(
                        registry,
                        name,
                        "1 for the state the kiosk's \(part) reported last.",
                        Double(reported == state ? 1 : 0),
                        labels: labels + [("state", state)]
                    )
                }
            }
            if let left = health.ticketsLeft {
                gauge(
                    registry,
                    "kiosk_tickets_left",
                    "Tickets left on the printer's roll (the kiosk's estimate from roll_tickets).",
                    Double(left),
                    labels: labels
                )
            }
            if let printed = health.ticketsSincePaperLoad {
                gauge(
                    registry,
                    "kiosk_tickets_since_paper_load",
                    "Tickets printed since the paper was last loaded.",
                    Double(printed),
                    labels: labels
                )
            }
            gauge(
                registry,
                "kiosk_pending_events",
                "Events the kiosk wrote that the server has not confirmed yet.",
                Double(health.pendingEvents),
                labels: labels
            )
            gauge(
                registry,
                "kiosk_info",
                "1, with the kiosk's software version as a label.",
                1.0,
                labels: labels + [("version", health.version)]
            )
        }
        return registry.emitToString()
    }

    /// `clup_<name>` set to `value`.
    private static func gauge(
        _ registry: PrometheusCollectorRegistry,
        _ name: String,
        _ help: String,
        _ value: Double,
        labels: [(String, String)]
    ) {
        registry.makeGauge(
            descriptor: MetricNameDescriptor(namespace: "clup", metricName: name, unitName: "", helpText: help),
            labels: labels
        ).set(value)
    }
}
