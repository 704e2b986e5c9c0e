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
            await startDueDays()
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }

    /// Writes `dayStarted` for every store whose log has not started its current business day.
    func startDueDays() async {
        let now = logs.clock.now()
        for live in logs.all where lease.isHeld {
            let calendar = live.record.profile.calendar
            let today = calendar.businessDay(at: now)
            let event: StoreEvent
            if let day = live.state.day, day >= today {
                // Started: its hours as the store has them now (changed by its manager, or a kiosk's copy of old
                // hours that reached the log first).
                guard day == today, live.state.hours != calendar.hours(of: day) else { continue }
                event = calendar.dayRestated(day, store: live.record.id, device: StoreLogs.serverDevice, at: now)
            } else {
                event = calendar.dayStarted(today, store: live.record.id, device: StoreLogs.serverDevice)
            }
            do {
                _ = try await logs.append([event], store: live.record.id)
                logger.info(
                    event.id == StoreEvent.dayStarted(today, store: live.record.id, device: "", at: now).id
                        ? "business day started" : "business day's hours changed",
                    metadata: ["store": "\(live.record.id)", "day": "\(today.number)", "event": "\(event.id)"]
                )
            } catch {
                logger.error(
                    "cannot start the business day",
                    metadata: ["store": "\(live.record.id)", "error": "\(error)"]
                )
            }
        }
    }
}
