import Logging
import ServiceLifecycle

/// Relearns every store's wait estimate from its own admissions (``TrafficModel``) at start and then every
/// 30 minutes (R12).
struct TrafficRefresh: Service {
    let logs: StoreLogs
    let interval: Duration
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await logs.refreshTraffic(at: logs.clock.now())
            } catch {
                logger.error("cannot refresh the wait estimates", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
