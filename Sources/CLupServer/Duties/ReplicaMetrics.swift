import Metrics
import Prometheus

/// This replica's own figures for a fleet's Prometheus, beside the stores' and kiosks' (``FleetMetrics``):
/// requests by route, method and status and their latency (Hummingbird's `MetricsMiddleware`), open long-polls
/// and event streams, events appended, whether this replica holds the background duties' lease, and on
/// PostgreSQL the wake-up lag of other replicas' appends, the connection pool's use (``PostgresPool``) and
/// how many writes share a transaction (``PostgresCommits``). The
/// executable bootstraps swift-metrics into ``registry``; servers run inside tests leave it unbootstrapped,
/// where these figures are no-ops.
public enum ReplicaMetrics {
    public static let registry = PrometheusCollectorRegistry()

    /// Sends the process's swift-metrics to ``registry`` (once, before the server is built).
    public static func bootstrap() {
        var factory = PrometheusMetricsFactory(registry: registry)
        // Finer than the default (5 ms up): a connection is usually free at once, a wake-up takes a few ms.
        factory.durationHistogramBuckets = [
            "clup_db_connection_wait_seconds": [
                .microseconds(100), .microseconds(500), .milliseconds(1),
                .milliseconds(5), .milliseconds(25), .milliseconds(100), .milliseconds(500), .seconds(1), .seconds(5),
            ],
            "clup_notify_lag_seconds": [
                .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25),
                .milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(500), .seconds(1), .seconds(5),
            ],
        ]
        factory.valueHistogramBuckets = ["clup_db_writes_per_transaction": [1, 2, 4, 8, 16, 32, 64, 128, 256, 500]]
        MetricsSystem.bootstrap(factory)
        // Every series exists from the start, at zero: a replica that has served nothing yet (just started,
        // or restarted after a crash) is scraped with the same names as the others, and rules see 0, not gaps.
        _ = (eventsAppended, longPolls, logReads, eventStreams, connectionsShed)
    }

    /// Events this replica appended to the stores' logs (new ones, not retries of events already there).
    static let eventsAppended = Counter(label: "clup_events_appended_total")
    /// Kiosk long-polls waiting on this replica now.
    static let longPolls = Meter(label: "clup_open_long_polls")
    /// From an append's statement on any replica (the database's clock) to this replica's queue of the store
    /// holding it — the wake-up lag of a long-poll or a live page here. Across machines it includes the
    /// clocks' difference: keep them in step (NTP).
    static let notifyLag = Timer(label: "clup_notify_lag_seconds")
    /// Reads of a store's log to catch up with the database: after a commit that found another replica's
    /// write not applied yet, or for a notification that did not carry its events (a large batch). Climbing
    /// with the appends says the notifications come late or without their events.
    static let logReads = Counter(label: "clup_log_reads_total")
    /// Shoppers' live status streams open on this replica now.
    static let eventStreams = Meter(label: "clup_open_event_streams")
    /// Idle connections closed to make room for new ones (the total neared `--max-connections`): a steady
    /// climb says someone holds many idle connections, or the limit is too low for the clients served.
    static let connectionsShed = Counter(label: "clup_connections_shed_total")
}
