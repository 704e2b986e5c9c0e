import KioskCore
import Logging
import ServiceLifecycle

/// Writes `ticketExpired` for called tickets not used within the call window, in every store — the same
/// rule the door stations apply (the reducer takes the first expiry of a ticket and ignores the others), so
/// app tickets expire even in a store whose door is offline.
struct NoShowExpiry: Service {
    /// Only the replica holding it writes expiries (``DutyLease``).
    let lease: DutyLease
    let logs: StoreLogs
    let policy: AdmissionPolicy
    let interval: Duration
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            if lease.isHeld { await logs.expireNoShows(at: logs.clock.now(), policy: policy, logger: logger) }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
