import Foundation
import KioskCore
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Keeps this replica in step with what other replicas write to the shared PostgreSQL database: every append
/// and every store change notifies the `clup_events` channel when it commits (``PostgresStorage``); this
/// service listens on its own connection and applies the events an append's notification carries (or reads
/// them, when the batch was too large to carry) — a kiosk long-polling here, or a shopper's live page, hears an
/// event appended through another replica at once, and following costs the database nothing more.
///
/// Notifications sent while the connection was down are lost: after every (re)connection it reads every
/// store's log, the store list and the traffic models from the database before it listens on.
struct LogFollower: Service {
    let logs: StoreQueues
    let storage: PostgresStorage
    let logger: Logger

    func run() async throws {
        _ = ReplicaMetrics.notifyLag  // exported from the start, empty until another replica's first append
        var delay = Duration.milliseconds(100)
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let listened = Atomic(false)
            do {
                try await cancelWhenGracefulShutdown {
                    try await storage.withConnection { connection in
                        try await connection.listen(on: PostgresStorage.eventsChannel) { notifications in
                            try await logs.catchUpEverything()
                            try await logs.loadModels()
                            logs.keyRingChanged(nil)  // changes while nobody listened were not heard
                            listened.store(true, ordering: .relaxed)
                            for try await notification in notifications {
                                await follow(notification.payload)
                            }
                        }
                    }
                }
            } catch {
                // Stopping: the cancellation is how the work ended, not a failure.
                if Task.isShuttingDownGracefully || Task.isCancelled { break }
                logger.warning(
                    "not following the database's changes — retrying",
                    metadata: ["error": "\(PostgresStorage.reason(error))", "retry": "\(delay)"]
                )
            }
            // A connection that worked starts the backoff again from the shortest wait.
            if listened.load(ordering: .relaxed) { delay = .milliseconds(100) }
            let wait = delay
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: wait) }
            delay = min(delay * 2, .seconds(5))
        }
    }

    /// `e:<store>:<last sequence>:<sent>[:<events>]` (an append; replicas of before the lag was measured send
    /// no time, a large batch no events) or `s:<store>` (a store registered or changed) or `t:` (the stores'
    /// traffic models computed again) or `k:<store>` (a kiosk of the store enrolled, revoked or keyed).
    private func follow(_ payload: String) async {
        // The events' JSON has colons of its own: it is the rest after the fourth.
        let parts = payload.split(separator: ":", maxSplits: 4)
        do {
            switch parts.first {
            case "e" where parts.count >= 3:
                guard let store = StoreID(uuidString: String(parts[1])), let last = Int64(parts[2]) else { return }
                guard let live = logs.store(store) else { return try await logs.reloadStores() }
                if last > live.lastSequence {
                    // Events this replica cannot decode from the notification are read from the log instead.
                    if parts.count == 5, let events = try? PostgresStorage.notifiedEvents(parts[4], store: store) {
                        try await logs.follow(events, store: store, through: last)
                    } else {
                        try await logs.catchUp(store, through: last)
                    }
                }
                if parts.count >= 4, let sent = Int64(parts[3]) {
                    // From the writer's statement to this replica's queue holding the events (its waiters woken).
                    // Real time, not the server's (a test's shifted) clock: this measures a delay.
                    let lag = Int64(Date().timeIntervalSince1970 * 1_000_000) - sent
                    ReplicaMetrics.notifyLag.recordMicroseconds(max(lag, 0))
                }
            case "s":
                try await logs.reloadStores()
            case "t":
                try await logs.loadModels()
            case "k" where parts.count >= 2:
                logs.keyRingChanged(StoreID(uuidString: String(parts[1])))
            default:
                logger.debug("unknown notification", metadata: ["payload": "\(payload)"])
            }
        } catch {
            logger.warning(
                "cannot read the database's changes",
                metadata: ["error": "\(PostgresStorage.reason(error))"]
            )
        }
    }
}
