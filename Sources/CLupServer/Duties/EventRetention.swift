import Logging
import ServiceLifecycle

/// Storage limitation (GDPR Art. 5(1)(e)): raw events older than `days` are removed, every `interval`, by the
/// replica holding the duties' lease, once the stores' kept live state covers them (``SnapshotKeeper``; the
/// wait model learns from its own counts, which the snapshot keeps). A day's figures and its CSV come from the
/// events, so `days` is at least a year and a day: the console and the report reach 366 days back.
struct EventRetention: Service {
    let logs: StoreLogs
    let lease: DutyLease
    let days: Int
    let interval: Duration
    let logger: Logger

    /// The shortest retention: the 366 days a report reaches back, and one more.
    static let fewestDays = 367

    func run() async throws {
        var removed: ContinuousClock.Instant?
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            if lease.isHeld, removed.map({ ContinuousClock.now - $0 >= interval }) ?? true {
                do {
                    let count = try await logs.removeEvents(olderThan: days, at: logs.clock.now())
                    if count > 0 { logger.info("removed \(count) events older than \(days) days") }
                } catch {
                    logger.error(
                        "cannot remove events older than \(days) days: the database keeps them until the next try",
                        metadata: ["error": "\(error)"]
                    )
                }
                removed = .now
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
        }
    }
}
