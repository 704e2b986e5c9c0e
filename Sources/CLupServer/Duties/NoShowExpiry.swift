import KioskCore
import Logging

extension LeaseDuty {
    /// Writes `ticketExpired` for called tickets not used within the call window, in every store — the same
    /// rule the door stations apply (the reducer takes the first expiry of a ticket and ignores the others), so
    /// app tickets expire even in a store whose door is offline.
    static func noShowExpiry(
        _ logs: StoreQueues,
        policy: AdmissionPolicy,
        lease: DutyLease,
        interval: Duration,
        logger: Logger
    ) -> LeaseDuty {
        LeaseDuty(lease: lease, interval: interval, failure: "cannot expire no-shows", logger: logger) {
            await logs.expireNoShows(at: logs.clock.now(), policy: policy, logger: logger)
        }
    }
}
