import Prometheus

/// The kiosk's Prometheus metrics, served at `GET /metrics` on the local HTTP port.
///
/// Counters and the tear-off histogram are counted where things happen (the printer and door loops); the
/// gauges (printer state, paper, occupancy, queue, outbox, sync lag) are read from the stations' status when
/// the page is scraped, so they can never drift from what `GET /status` says. One registry per kiosk, not a
/// process-wide bootstrap: tests run several kiosks in one process.
public final class StationMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()

    let ticketsPrinted: Counter
    let ticketsTaken: Counter
    /// From the moment a tear-off is recorded to the moment the next ticket is confirmed printed.
    let tearOffToNextTicket: DurationHistogram

    static let tearOffBuckets: [Duration] = [50, 100, 150, 250, 500, 1000, 2000, 5000, 15000].map {
        .milliseconds($0)
    }

    public init() {
        ticketsPrinted = registry.makeCounter(
            descriptor: Self.name("tickets_printed", "total", "Tickets printed (a reprint after a fault counts again).")
        )
        ticketsTaken = registry.makeCounter(
            descriptor: Self.name("tickets_taken", "total", "Tickets torn off: customers who joined the queue here.")
        )
        tearOffToNextTicket = registry.makeDurationHistogram(
            descriptor: Self.name(
                "tearoff_next_ticket",
                "seconds",
                "From a tear-off to the next ticket printed and waiting (requirement: under 2 s)."
            ),
            buckets: Self.tearOffBuckets
        )
    }

    /// A door decision, by reason (`admit`, `not_your_turn`, `store_full`, `forged`, ...).
    func scanned(_ reason: String) {
        registry.makeCounter(
            descriptor: Self.name("scans", "total", "Scans at the door by decision."),
            labels: [("decision", reason)]
        ).increment()
    }

    /// Exits counted at the door (button or exit key).
    func exited() {
        registry.makeCounter(descriptor: Self.name("exits", "total", "Customers counted leaving the store."))
            .increment()
    }

    /// A phrase of the voice, by outcome: `spoken`, `dropped` (it fell behind), `failed` (no sound card).
    func voicePhrase(_ outcome: String) {
        registry.makeCounter(
            descriptor: Self.name(
                "voice_phrases",
                "total",
                "Phrases the kiosk's voice said, dropped or failed to say."
            ),
            labels: [("outcome", outcome)]
        ).increment()
    }

    /// Sets every gauge from the current status; called before each scrape.
    func update(from status: StationStatus, now: Int64) {
        gauge("occupancy", "People inside the store now.", Double(status.queue.inside))
        gauge("capacity", "People allowed inside at once.", Double(status.queue.capacity))
        gauge(
            "queue_waiting",
            "Tickets waiting in line (torn off, app and due bookings).",
            Double(status.queue.waiting)
        )
        gauge("queue_called", "Tickets called to the door now.", Double(status.queue.called.count))
        if let clock = status.clock {
            gauge(
                "clock_trusted",
                "1 while the box's clock is believed (NTP, the server's clock, or not before the last time seen).",
                clock.trusted ? 1 : 0
            )
        }
        gauge(
            "database_damaged",
            "1 when this start found the database damaged and set it aside (see /status databaseDamage).",
            status.databaseDamage == nil ? 0 : 1
        )
        if let printer = status.printer {
            for state in PrinterStationStatus.State.allCases {
                gauge(
                    "printer_state",
                    "1 for the printer station's current state.",
                    printer.state == state ? 1 : 0,
                    labels: [("state", state.rawValue)]
                )
            }
            for paper in ["ok", "near_end", "out"] {
                gauge(
                    "printer_paper",
                    "1 for the paper's current state (ok, near_end, out).",
                    printer.paper == paper ? 1 : 0,
                    labels: [("paper", paper)]
                )
            }
        }
        if let door = status.door {
            gauge("scanner_up", "1 while the door's scanner is open and reading.", door.state == "ready" ? 1 : 0)
        }
        if let sync = status.sync {
            gauge("sync_online", "1 while the last exchange with clup-server worked.", sync.state == "online" ? 1 : 0)
            gauge("sync_outbox_events", "Events written here that clup-server has not confirmed.", Double(sync.outbox))
            gauge(
                "sync_quarantined_events",
                "Events clup-server refused for good, set aside out of the outbox (see /status: lastRefusal).",
                Double(sync.quarantined)
            )
            gauge(
                "sync_newer_events",
                "Events of the store's log of a type this kioskd does not know (a newer clup-server's): update kioskd.",
                Double(sync.newerEvents)
            )
            gauge(
                "sync_upgrade_required",
                "1 while clup-server refuses this kioskd as too old (426): update kioskd (see /status: upgradeRequired).",
                sync.upgradeRequired == nil ? 0 : 1
            )
            gauge(
                "sync_lag_seconds",
                "Age of the oldest event clup-server has not confirmed (0 when none waits).",
                sync.oldestUnconfirmed.map { Double(max(now - $0, 0)) / 1000 } ?? 0
            )
        }
    }

    private func gauge(_ name: String, _ help: String, _ value: Double, labels: [(String, String)] = []) {
        registry.makeGauge(descriptor: Self.name(name, "", help), labels: labels).set(value)
    }

    /// `clup_<metric>_<unit>` with its help line.
    static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "clup", metricName: metric, unitName: unit, helpText: help)
    }

    /// The Prometheus text exposition of every metric.
    public func exposition() -> String {
        registry.emitToString()
    }
}
