import KioskCore
import Logging
import ServiceLifecycle

/// Starts each store's business day when its line begins — at the previous opening day's closing
/// (``StoreCalendar``): writes ``StoreEvent/Body/dayStarted`` with the day's hours, so yesterday's unused tickets
/// leave the queue, tickets taken overnight are the next day's, and nobody is called until it opens — the same
/// event, with the same id, that the store's kiosks write when they notice the new day first (the log keeps one).
struct BusinessDayStart: Service {
    /// Only the replica holding it writes a day's start (``DutyLease``; a kiosk may write it too).
    let lease: DutyLease
    let logs: StoreLogs
    let interval: Duration
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            if lease.isHeld { await logs.startDueDays(at: logs.clock.now(), logger: logger) }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
