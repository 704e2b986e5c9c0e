import KioskCore
import Logging
import ServiceLifecycle
import ServiceSupport
import StationStore
import Synchronization

/// Starts the store's business day when its line begins — the previous opening day's closing, or the opening
/// for a store that never closes (``StoreCalendar``): writes ``StoreEvent/Body/dayStarted`` with the day's hours
/// to the station's log (yesterday's unused tickets expire, occupancy starts again from zero, nobody is called
/// until the store opens; every station and the server fold the same event), so tickets taken overnight are the
/// next day's and the first customer of the morning is not refused behind yesterday's queue.
///
/// The printer calls ``startDayIfDue()`` before it issues a ticket and the door before it decides, so no
/// decision of the new day is made on yesterday's state; as a `Service` it also checks once a second, so the
/// pages show the new day at closing time even when nobody comes. Checking against the wall clock (not sleeping
/// until a computed instant) keeps it right when the clock is set or a box is started the next morning.
public final class BusinessDayKeeper: Service, Sendable {
    let config: KioskConfig
    let store: LocalStore
    let queue: QueueReplica
    let clock: WallClock
    let logger: Logger
    /// The store's clock and hours: days start as they say.
    public let schedule: StoreSchedule
    /// Whether the clock can be believed: no day starts on a wrong one.
    public let clockWatch: ClockWatch
    /// One writer at a time (printer thread, door thread, this service): the event is written once.
    private let writing = Mutex(())

    public init(
        config: KioskConfig,
        store: LocalStore,
        queue: QueueReplica,
        clock: WallClock,
        logger: Logger,
        schedule: StoreSchedule? = nil,
        clockWatch: ClockWatch? = nil
    ) {
        self.schedule = schedule ?? StoreSchedule(configured: config, store: store, logger: logger)
        self.clockWatch = clockWatch ?? ClockWatch(clock: clock, logger: logger, floor: nil)
        self.config = config
        self.store = store
        self.queue = queue
        self.clock = clock
        self.logger = logger
    }

    /// The store's zone (printed times, pages).
    public var zone: StoreTimeZone { schedule.zone }

    /// The business day a ticket issued or taken at `now` belongs to.
    func businessDay(at now: Timestamp) -> BusinessDay {
        schedule.calendar.businessDay(at: now)
    }

    /// Writes the current business day's `dayStarted` when the log has not started it yet. Returns whether it
    /// wrote one. Throws when the log cannot be written (the caller must not decide on yesterday's state), and
    /// ``ClockWatch/Wrong`` while the clock cannot be believed (nothing may be decided by it).
    @discardableResult
    public func startDayIfDue() throws -> Bool {
        try clockWatch.requireTrusted()
        let now = clock.now()
        let calendar = schedule.calendar
        let today = calendar.businessDay(at: now)
        if let day = queue.snapshot.day, day >= today { return false }
        return try writing.withLock { _ in
            let before = queue.snapshot
            if let day = before.day, day >= today { return false }
            let event = calendar.dayStarted(today, store: config.store.id, device: config.device.id)
            try StationLog(store: store, queue: queue, config: config, clockWatch: clockWatch).record([event])
            let after = queue.snapshot
            logger.notice(
                "business day started",
                metadata: [
                    "day": "\(today.number)", "expired": "\(before.waitingCount - after.waitingCount)",
                    "inside_at_day_end": "\(after.insideAtLastDayEnd)",
                    "opens": "\(Timestamp.localText(calendar.opens(today), zone: calendar.zone))",
                ]
            )
            return true
        }
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try startDayIfDue()
            } catch is ClockWatch.Wrong {
                // Said once by the watch, and on the status.
            } catch {
                logger.error(
                    "cannot start the business day",
                    metadata: ["error": "\(error)", "action": "check the state directory's disk space"]
                )
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
        }
    }
}
