import KioskCore
import Logging
import ServiceSupport
import StationStore

/// What every station of a kiosk shares: its configuration, its local store and the queue folded from it, the
/// one way it records (``StationLog``), the clock it takes as now, the feed that wakes the local pages, its metrics
/// and the keeper of the business day. Made once (``Kiosk/build(config:clock:logger:)``) for the printer and the
/// door alike.
public struct StationContext: Sendable {
    public let config: KioskConfig
    public let store: LocalStore
    public let queue: QueueReplica
    /// Where the station's events are made and recorded.
    public let log: StationLog
    public let logger: Logger
    public let changes: ChangeFeed
    /// What the station takes as now (issue and tear-off times, a booking's slot, the business day).
    public let clock: WallClock
    public let metrics: StationMetrics
    /// Starts the business day before a decision of the new day is made on yesterday's state.
    public let days: BusinessDayKeeper
    /// The kiosk's voice, when `[voice]` is enabled.
    public let voice: Voice?

    public init(
        config: KioskConfig,
        store: LocalStore,
        queue: QueueReplica,
        logger: Logger,
        changes: ChangeFeed,
        clock: WallClock,
        metrics: StationMetrics,
        days: BusinessDayKeeper,
        voice: Voice? = nil
    ) {
        self.config = config
        self.store = store
        self.queue = queue
        log = StationLog(store: store, queue: queue, config: config, clockWatch: days.clockWatch)
        self.logger = logger
        self.changes = changes
        self.clock = clock
        self.metrics = metrics
        self.days = days
        self.voice = voice
    }
}

/// A station of the kiosk (the printer, the door): what it shares, by name.
protocol Station {
    var context: StationContext { get }
}

extension Station {
    var config: KioskConfig { context.config }
    var store: LocalStore { context.store }
    var queue: QueueReplica { context.queue }
    var log: StationLog { context.log }
    var logger: Logger { context.logger }
    var changes: ChangeFeed { context.changes }
    var clock: WallClock { context.clock }
    var metrics: StationMetrics { context.metrics }
    var days: BusinessDayKeeper { context.days }
    var voice: Voice? { context.voice }
}
