import Logging
import ServiceLifecycle

/// Keeps every store's live state in the database (``StoreLogs/keepSnapshots()``) every `interval`, and once
/// more when the server stops — once for the fleet: the replica holding the duties' lease writes them, every
/// replica starts from them. A start then folds at most an interval of events per store, whatever its history.
struct SnapshotKeeper: Service {
    let logs: StoreLogs
    let lease: DutyLease
    let interval: Duration
    let logger: Logger

    func run() async throws {
        var kept = ContinuousClock.now
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            if lease.isHeld, ContinuousClock.now - kept >= interval {
                await keep()
                kept = .now
            }
            // The lease is looked at every second, like the other duties'.
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
        }
        if lease.isHeld { await keep() }
    }

    private func keep() async {
        do {
            let count = try await logs.keepSnapshots()
            if count > 0 { logger.debug("kept the live state of \(count) stores") }
        } catch {
            logger.error(
                "cannot keep the stores' live state: the next start reads more of their logs",
                metadata: ["error": "\(error)"]
            )
        }
    }
}
