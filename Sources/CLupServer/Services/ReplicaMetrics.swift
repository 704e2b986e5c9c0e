import Metrics
import Prometheus

/// This replica's own figures for a fleet's Prometheus, beside the stores' and kiosks' (``FleetMetrics``):
/// requests by route, method and status and their latency (Hummingbird's `MetricsMiddleware`), open long-polls
/// and event streams, events appended, and whether this replica holds the background duties' lease. The
/// executable bootstraps swift-metrics into ``registry``; servers run inside tests leave it unbootstrapped,
/// where these figures are no-ops.
public enum ReplicaMetrics {
    public static let registry = PrometheusCollectorRegistry()

    /// Sends the process's swift-metrics to ``registry`` (once, before the server is built).
    public static func bootstrap() {
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
    }

    /// Events this replica appended to the stores' logs (new ones, not retries of events already there).
    static let eventsAppended = Counter(label: "clup_events_appended_total")
    /// Kiosk long-polls waiting on this replica now.
    static let longPolls = Meter(label: "clup_open_long_polls")
    /// Shoppers' live status streams open on this replica now.
    static let eventStreams = Meter(label: "clup_open_event_streams")
}
