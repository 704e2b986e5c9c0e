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
            let now = logs.clock.now()
            for live in logs.all where lease.isHeld {
                let due = Admission.noShows(queue: live.state, now: now, policy: policy)
                guard !due.isEmpty else { continue }
                let events = due.map {
                    StoreEvent.new(.ticketExpired($0), store: live.record.id, device: StoreLogs.serverDevice, at: now)
                }
                do {
                    _ = try await logs.append(events, store: live.record.id)
                } catch {
                    logger.error(
                        "cannot write expiries",
                        metadata: ["store": "\(live.record.id)", "error": "\(error)"]
                    )
                }
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
