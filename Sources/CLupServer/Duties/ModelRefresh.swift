import Logging
import ServiceLifecycle

/// Relearns every store's wait model from its own log (``WaitModel``, R12) every 30 minutes — once for the
/// fleet: the replica holding the duties' lease learns the models and keeps them in the database, the others
/// read them when told (``LogFollower``) and at their start. A replica that takes the lease over learns them at
/// once.
struct ModelRefresh: Service {
    let logs: StoreLogs
    let lease: DutyLease
    let interval: Duration
    let logger: Logger

    func run() async throws {
        do {
            try await logs.loadModels()
        } catch {
            logger.warning("cannot read the stored wait estimates", metadata: ["error": "\(error)"])
        }
        var computed: ContinuousClock.Instant?
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            if !lease.isHeld {
                computed = nil
            } else if computed.map({ ContinuousClock.now - $0 >= interval }) ?? true {
                do {
                    try await logs.refreshModels(at: logs.clock.now())
                    computed = .now
                } catch {
                    logger.error("cannot refresh the wait estimates", metadata: ["error": "\(error)"])
                    computed = .now  // the next try after the interval, not every second
                }
            }
            // The lease is looked at every second, like the other duties'.
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
        }
    }
}
