import KioskCore
import Logging
import ServiceLifecycle
import ServiceSupport
import Synchronization

/// Ends the store's business day at its opening time: writes ``StoreEvent/Body/dayStarted`` to the station's
/// log (yesterday's line expires, occupancy starts from zero; every station and the server fold the same
/// event), so the first customer of the morning is not refused behind yesterday's queue.
///
/// The printer calls ``startDayIfDue()`` before it issues a ticket and the door before it decides, so no
/// decision of the new day is made on yesterday's state; as a `Service` it also checks once a second, so the
/// pages show the new day at opening time even when nobody comes. Checking against the wall clock (not sleeping
/// until a computed instant) keeps it right when the clock is set or a box is started the next morning.
public final class BusinessDayKeeper: Service, Sendable {
    let config: KioskConfig
    let store: LocalStore
    let queue: QueueReplica
    let clock: WallClock
    let logger: Logger
    /// The store's clock: days start at the opening time in this zone.
    public let zone: StoreZone
    /// One writer at a time (printer thread, door thread, this service): the event is written once.
    private let writing = Mutex(())

    public init(
        config: KioskConfig,
        store: LocalStore,
        queue: QueueReplica,
        clock: WallClock,
        logger: Logger,
        zone: StoreZone? = nil
    ) {
        self.zone = zone ?? StoreZone(configured: config.store.timeZone, store: store, logger: logger)
        self.config = config
        self.store = store
        self.queue = queue
        self.clock = clock
        self.logger = logger
    }

    /// The business day at `now`, as this store counts days (they start at the opening time, local time).
    func businessDay(at now: Timestamp) -> BusinessDay {
        BusinessDay(at: now, openingTime: openingTime, zone: zone.current)
    }

    private var openingTime: Int { config.store.openingTime.secondsAfterMidnight }

    /// Writes the current business day's `dayStarted` when the log has not started it yet. Returns whether it
    /// wrote one. Throws when the log cannot be written (the caller must not decide on yesterday's state).
    @discardableResult
    public func startDayIfDue() throws -> Bool {
        let now = clock.now()
        let today = businessDay(at: now)
        if let day = queue.snapshot.day, day >= today { return false }
        return try writing.withLock { _ in
            let before = queue.snapshot
            if let day = before.day, day >= today { return false }
            let start = today.start(openingTime: openingTime, zone: zone.current)
            try StationLog(store: store, queue: queue, config: config).startDay(today, at: start)
            let after = queue.snapshot
            logger.notice(
                "business day started",
                metadata: [
                    "day": "\(today.number)", "expired": "\(before.waitingCount - after.waitingCount)",
                    "inside_at_day_end": "\(after.insideAtLastDayEnd)",
                ]
            )
            return true
        }
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try startDayIfDue()
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
