import KioskCore
import Logging

extension LeaseDuty {
    /// Starts each store's business day when its line begins — at the previous opening day's closing
    /// (``StoreCalendar``): writes ``StoreEvent/Body/dayStarted`` with the day's hours, so yesterday's unused
    /// tickets leave the queue, tickets taken overnight are the next day's, and nobody is called until it opens —
    /// the same event, with the same id, that the store's kiosks write when they notice the new day first (the log
    /// keeps one). Looked at every second.
    static func businessDayStart(_ logs: StoreQueues, lease: DutyLease, logger: Logger) -> LeaseDuty {
        LeaseDuty(lease: lease, interval: .seconds(1), failure: "cannot start a business day", logger: logger) {
            await logs.startDueDays(at: logs.clock.now(), logger: logger)
        }
    }
}
