import Foundation
import KioskCore
import Prometheus

/// How right the told waits are, as the stores' logs go (``ToldWaits`` scores a ticket when it is admitted or
/// expires): each store's absolute error of the told point against the actual wait until the call, as a
/// histogram, how many were told a range and how many of those waits fell in it. `GET /metrics` exports them beside the
/// fleet's gauges; the rule ClupWaitEstimatesOff (packaging/prometheus) fires for a store whose estimates have
/// been bad for a day. Every replica follows every store's log, so each exports the same store's figures for the
/// events it applied since it started (rules take ratios and quantiles, which are the same on each).
public final class EstimateMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()

    /// Half a minute to an hour: a wait is told in minutes, and an error past an hour is a broken estimate.
    static let buckets: [Duration] = [
        .seconds(30), .seconds(60), .seconds(120), .seconds(180), .seconds(300), .seconds(600), .seconds(900),
        .seconds(1800), .seconds(3600),
    ]

    static var error: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "clup",
            metricName: "wait_estimate_error",
            unitName: "seconds",
            helpText: "Absolute error of the wait each ticket was told against its wait until the call."
        )
    }

    static var ranged: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "clup",
            metricName: "wait_estimate_ranged",
            unitName: "total",
            helpText: "Tickets told a range with their wait (a wait told 0 minutes is told none)."
        )
    }

    static var inRange: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "clup",
            metricName: "wait_estimate_in_range",
            unitName: "total",
            helpText: "Tickets told a range whose wait until the call fell inside it."
        )
    }

    public init() {}

    /// Counts `scored` for `store`.
    func record(_ scored: [(told: WaitRange, waited: Duration)], store: StoreID) {
        guard !scored.isEmpty else { return }
        let labels = [("store", store.uuidString.lowercased())]
        let errors = registry.makeDurationHistogram(descriptor: Self.error, labels: labels, buckets: Self.buckets)
        let ranged = registry.makeCounter(descriptor: Self.ranged, labels: labels)
        let held = registry.makeCounter(descriptor: Self.inRange, labels: labels)
        for (told, waited) in scored {
            errors.record(told.point > waited ? told.point - waited : waited - told.point)
            guard told.isToldAsRange else { continue }
            ranged.increment()
            if told.holds(waited) { held.increment() }
        }
    }

    /// The exposition of every store's figures.
    func exposition() -> String { registry.emitToString() }
}
