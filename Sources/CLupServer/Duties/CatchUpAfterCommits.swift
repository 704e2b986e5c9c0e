import KioskCore
import Logging
import ServiceLifecycle

/// Reads the log of every store a commit found this replica behind (``StoresBehind``), so that waiters on the
/// store hear the missing events without waiting for the next request or notification of the store. Every
/// replica runs it (a read, not a duty of the lease); stopping it loses nothing: a replica reads its own write
/// before it answers, and every request of the store catches up with what it needs.
struct CatchUpAfterCommits: Service {
    let logs: StoreQueues
    let logger: Logger

    func run() async {
        for await _ in logs.behind.wakes.cancelOnGracefulShutdown() {
            for store in logs.behind.take() {
                do {
                    try await logs.catchUp(store)
                } catch {
                    logger.warning(
                        "cannot read the store's log after a commit: the next request or notification reads it again",
                        metadata: ["store": "\(store)", "error": "\(error)"]
                    )
                }
            }
        }
    }
}
