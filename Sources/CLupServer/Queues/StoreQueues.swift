import Crypto
import Foundation
import KioskCore
import Logging
import ServiceLifecycle
import ServiceSupport
import Synchronization

/// Every store's queue in memory: the same KioskCore reducer the kiosks run, folded over the store's log
/// in sequence order, and kept in step with the database (events are applied after their commit, in the
/// writer's order). Long-polls and event streams wait on a store's ``ChangeFeed``.
public final class StoreQueues: Sendable {
    let database: any ServerStorage
    static let logger = Logger(label: "clup-server.logs")
    /// How long a called ticket holds its place (the wait estimate's no-shows).
    public let callWindow: Duration
    let live: Mutex<[StoreID: Live]>
    /// The store of each ticket the queues hold.
    let tickets = TicketIndex()
    /// The sequence of each store's last kept snapshot (``keepSnapshots()``).
    let snapshotted: Mutex<[StoreID: Int64]>
    /// Database look-ups of store ids this replica does not know (``require(_:)``): 20 at once, then 20 a second.
    private let lookups = RateLimiter(RateLimiter.Rule(burst: 20, interval: .milliseconds(50)))
    /// Reads of a store's log to catch up with it since the start (``catchUp(_:through:)``): a commit that found
    /// a gap, another replica's write whose notification did not carry its events.
    let logReads = Atomic<Int>(0)
    /// Pages of a store's log read from the database for a kiosk (``events(store:after:wait:limit:)``): only
    /// what came before the events memory holds (``RecentEvents``).
    let logPageReads = Atomic<Int>(0)
    /// The stores a commit found this replica behind, for ``CatchUpAfterCommits``.
    let behind = StoresBehind()
    /// The log reads under way, one a store (``catchUp(_:through:)``).
    let reads = LogReads()
    /// The stores' kiosk keys (``keyRing(of:)``).
    let keyRings = KeyRings()

    /// The told waits scored as events are applied after the start (the start's own fold scores none: a
    /// restarted replica would count them again).
    public let estimates = EstimateMetrics()

    /// The server's clock (the database's).
    public var clock: WallClock { database.clock }

    /// Every store from its last snapshot and the events after it (``load(_:database:callWindow:)``).
    public convenience init(database: any ServerStorage, callWindow: Duration = .seconds(600)) async throws {
        // Read before any property is set: a throw then has nothing to undo (the optimiser crashed undoing the
        // atomics of a half-made instance).
        var stores: [StoreID: Live] = [:]
        var snapshotted: [StoreID: Int64] = [:]
        for record in try await database.stores() {
            var (store, sequence) = try await Self.load(record, database: database, callWindow: callWindow)
            store.traffic.prune(now: database.clock.now())
            stores[record.id] = store
            snapshotted[record.id] = sequence
        }
        self.init(database: database, callWindow: callWindow, stores: stores, snapshotted: snapshotted)
    }

    private init(
        database: any ServerStorage,
        callWindow: Duration,
        stores: [StoreID: Live],
        snapshotted: [StoreID: Int64]
    ) {
        self.database = database
        self.callWindow = callWindow
        live = Mutex(stores)
        self.snapshotted = Mutex(snapshotted)
        for (id, store) in stores { tickets.update(.all(of: store.state), store: id) }
    }

    /// A store registered since the start (here, or through another replica): its queue starts empty and
    /// follows its log from the first event. A store already known is left as it is.
    public func add(_ record: StoreRecord) {
        live.withLock {
            guard $0[record.id] == nil else { return }
            $0[record.id] = Live(
                record: record,
                state: QueueState(capacity: record.profile.capacity),
                lastSequence: 0,
                callWindow: callWindow
            )
        }
    }

    /// Reads the store list again: stores registered through another replica are added (with their log so
    /// far), changed profiles replace the ones in memory.
    public func reloadStores() async throws {
        for record in try await database.stores() {
            if self.store(record.id) == nil {
                add(record)
                try await restoreFromSnapshot(record.id)
                try await catchUp(record.id)
            } else {
                setProfile(record.profile, store: record.id)
            }
        }
    }

    /// Every store's log beyond what this process applied, and stores it does not know yet (after the
    /// connection that tells it about other replicas' writes was lost).
    public func catchUpEverything() async throws {
        try await reloadStores()
        for store in all {
            try await restoreFromSnapshot(store.record.id)
            try await catchUp(store.record.id)
        }
    }

    public func store(_ id: StoreID) -> Live? { live.withLock { $0[id] } }

    /// The store, or 404. A store this replica does not know may have been registered through another replica
    /// a moment ago (its notification still on the way): it is looked up in the database before the 404 — a few
    /// a second at most, so that made-up ids in requests cannot turn into a database read each.
    public func require(_ id: StoreID) async throws(Refusal) -> Live {
        if let live = store(id) { return live }
        if lookups.take("unknown store", at: clock.now()) == nil {
            do {
                if let record = try await database.store(id) {
                    add(record)
                    try await restoreFromSnapshot(id)
                    try await catchUp(id)
                }
            } catch {
                throw Refusal.failed  // as any request the database fails
            }
        }
        guard let live = store(id) else { throw Refusal.notFound("store \(id)") }
        return live
    }

    public var all: [Live] { live.withLock { Array($0.values) } }

    /// A ticket's entry while it is live: in a printer, booked, waiting or called (nil once it is over).
    static func liveEntry(_ id: TicketID, in state: QueueState) -> QueueState.Entry? {
        guard let entry = state.entries[id] else { return nil }
        switch entry.stage {
        case .inPrinter, .waiting: return entry
        case .admitted, .expired, .cancelled: return nil
        }
    }

    /// The store whose queue holds this ticket.
    public func store(containing ticket: TicketID) -> Live? {
        guard let id = tickets.store(of: ticket), let store = store(id), store.state.entries[ticket] != nil else {
            return nil
        }
        return store
    }

    /// The log after `sequence`; when there is nothing yet, waits up to `wait` for it (a long-poll). Answered
    /// from the store's recent events in memory; the database only for older ones.
    public func events(
        store: StoreID,
        after sequence: Int64,
        wait: Duration,
        limit: Int = 1000
    ) async throws
        -> [StoreEvent]
    {
        let feed = try await require(store).changes
        if wait > .zero {
            // A stopping server answers at once with what there is: the client asks again, elsewhere.
            ReplicaMetrics.longPolls.increment()
            defer { ReplicaMetrics.longPolls.decrement() }
            _ = await cancelWhenGracefulShutdown {
                await feed.wait(timeout: wait) { [weak self] in (self?.store(store)?.lastSequence ?? 0) > sequence }
            }
        }
        // From memory: what this replica applied. A kiosk ahead of it is answered nothing new (another replica's
        // events reach it shortly, and wake the next poll); only what came before the recent events is read.
        if let live = self.store(store) {
            if sequence >= live.lastSequence { return [] }
            if let recent = live.recent.after(sequence, limit: limit) { return recent }
        }
        logPageReads.add(1, ordering: .relaxed)
        return try await database.events(store: store, after: sequence, limit: limit)
    }
}
