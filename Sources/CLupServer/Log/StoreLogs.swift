import Crypto
import Foundation
import KioskCore
import ServiceLifecycle
import ServiceSupport
import Synchronization

/// Every store's queue in memory: the same KioskCore reducer the kiosks run, folded over the store's log
/// in sequence order, and kept in step with the database (events are applied after their commit, in the
/// writer's order). Long-polls and event streams wait on a store's ``ChangeFeed``.
public final class StoreLogs: Sendable {
    public struct Live: Sendable {
        public var record: StoreRecord
        public var state: QueueState
        public var lastSequence: Int64
        public let changes: ChangeFeed
        /// Learnt from the store's log (``refreshModels(at:)``); nil until computed.
        public private(set) var model: WaitModel?
        /// What the log's last weeks say about the line, gathered as events are applied (the model's input).
        public internal(set) var traffic = StoreTraffic()
        /// What the tickets in line were told, to score the estimate as they leave the line.
        var toldWaits = ToldWaits()
        /// The wait estimate of `model`, else of the store's configured average visit.
        public private(set) var estimator: WaitEstimator

        init(record: StoreRecord, state: QueueState, lastSequence: Int64, callWindow: Duration) {
            self.record = record
            self.state = state
            self.lastSequence = lastSequence
            changes = ChangeFeed()
            model = nil
            estimator = WaitEstimator(model: Self.prior(record.profile), callWindow: callWindow)
        }

        /// The model of a store without history: its configured average visit.
        static func prior(_ profile: StoreProfile) -> WaitModel {
            .prior(averageVisit: .seconds(profile.averageVisitMinutes * 60))
        }

        /// The store's prior (``prior(_:)``).
        var prior: WaitModel { Self.prior(record.profile) }

        /// Takes a newly learnt (or another replica's) model; the estimator follows.
        mutating func set(model: WaitModel) {
            guard model != self.model else { return }
            self.model = model
            estimator = WaitEstimator(model: model, callWindow: estimator.callWindow)
        }

        /// Takes the store's changed profile; without a learnt model the estimator follows its average visit.
        mutating func set(profile: StoreProfile) {
            let visitChanged = profile.averageVisitMinutes != record.profile.averageVisitMinutes
            record.profile = profile
            if model == nil, visitChanged { estimator = WaitEstimator(model: prior, callWindow: estimator.callWindow) }
        }

        /// Folds `event` into the queue, and what it says into the traffic (before: who was called when); the
        /// told wait it scores, if any.
        @discardableResult
        mutating func apply(_ event: StoreEvent) -> (told: WaitRange, waited: Duration)? {
            traffic.observe(event, before: state)
            let scored = toldWaits.observe(event, before: state)
            state.apply(event)
            if case .dayStarted = event.body { toldWaits.prune(keeping: state) }
            return scored
        }

        /// The told wait of the ticket at `position` in the line at `now` (the line's length: one taken now).
        public func wait(position: Int, at now: Timestamp) -> WaitRange {
            estimator.wait(position: position, in: state, at: now)
        }
    }

    let database: any ServerStorage
    /// How long a called ticket holds its place (the wait estimate's no-shows).
    let callWindow: Duration
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
    /// The log reads under way, one a store (``catchUp(_:through:)``), numbered as they begin.
    private let reads = Mutex<(begun: Int, running: [StoreID: (number: Int, task: Task<Void, any Error>)])>(
        (0, [:])
    )

    /// The told waits scored as events are applied after the start (the start's own fold scores none: a
    /// restarted replica would count them again).
    public let estimates = EstimateMetrics()

    /// The device id the server signs app tickets and writes its own events (expiries) as.
    public static let serverDevice: DeviceID = "clup-server"

    /// The server's clock (the database's).
    public var clock: WallClock { database.clock }

    public init(database: any ServerStorage, callWindow: Duration = .seconds(600)) async throws {
        self.database = database
        self.callWindow = callWindow
        var stores: [StoreID: Live] = [:]
        var snapshotted: [StoreID: Int64] = [:]
        // Each store from its last snapshot and the events after it (``load(_:database:callWindow:)``).
        for record in try await database.stores() {
            var (store, sequence) = try await Self.load(record, database: database, callWindow: callWindow)
            store.traffic.prune(now: database.clock.now())
            tickets.update(.all(of: store.state), store: record.id)
            stores[record.id] = store
            snapshotted[record.id] = sequence
        }
        live = Mutex(stores)
        self.snapshotted = Mutex(snapshotted)
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
    public func require(_ id: StoreID) async throws(APIError) -> Live {
        if let live = store(id) { return live }
        if lookups.take("unknown store", at: clock.now()) == nil {
            do {
                if let record = try await database.store(id) {
                    add(record)
                    try await restoreFromSnapshot(id)
                    try await catchUp(id)
                }
            } catch {
                throw APIError.failed  // as any request the database fails
            }
        }
        guard let live = store(id) else { throw APIError.notFound("store \(id)") }
        return live
    }

    /// A store's changed profile, once stored.
    func setProfile(_ profile: StoreProfile, store: StoreID) {
        live.withLock { $0[store]?.set(profile: profile) }
    }

    /// Learns every store's wait model from its traffic of the last weeks (``WaitModel/learn(_:prior:now:)``),
    /// and keeps them for the other replicas (the one holding the duties' lease does this, once for the fleet).
    public func refreshModels(at now: Timestamp) async throws {
        var models: [StoreID: WaitModel] = [:]
        for store in all {
            let model = WaitModel.learn(store.traffic, prior: store.prior, now: now)
            live.withLock {
                $0[store.record.id]?.set(model: model)
                $0[store.record.id]?.traffic.prune(now: now)
            }
            models[store.record.id] = model
        }
        try await database.saveWaitModels(models)
    }

    /// Takes the wait models another replica learnt (``refreshModels(at:)``).
    public func loadModels() async throws {
        let models = try await database.waitModels()
        live.withLock { stores in
            for (store, model) in models { stores[store]?.set(model: model) }
        }
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

    /// Appends events to a store's log (idempotent by event id) and applies the new ones.
    /// A store's key ring: the server's own key (app tickets, bookings) first, then every enrolled kiosk's
    /// registered key. 404 for an unknown store.
    func keyRing(of store: StoreID) async throws -> [(device: DeviceID, key: Curve25519.Signing.PublicKey)] {
        let live = try await require(store)
        return [(Self.serverDevice, live.record.signer.publicKey)] + (try await database.keyRing(store: store))
    }

    public func append(_ events: [StoreEvent], store: StoreID) async throws -> [AppendResult] {
        _ = try await require(store)
        // A ticket id belongs to one store for ever: a kiosk of another store cannot issue a ticket under it.
        func issued(_ event: StoreEvent) -> TicketID? {
            if case .ticketIssued(let ticket, _) = event.body { ticket.id } else { nil }
        }
        if let taken = try await database.ticketsOfOtherStores(events.compactMap(issued), store: store).first {
            throw APIError(
                .conflict,
                "ticket id \(taken) is in use: a kiosk makes a new id (UUIDv7) for each ticket it prints",
                field: "events[\(events.firstIndex { issued($0) == taken } ?? 0)].body.ticket.id"
            )
        }
        let results = try await database.append(events, store: store) { [self] added in
            applyCommitted(added, store: store)
        }
        ReplicaMetrics.eventsAppended.increment(by: results.count { $0.new })
        try await catchUp(store, through: results.map(\.sequence).max() ?? 0)
        return results
    }

    /// Issues an app ticket or a booking in the store's log; an app ticket is told the wait of the line's end
    /// (kept in its event, to measure the estimate by).
    public func issue(
        kind: TicketKind,
        store: StoreID,
        slot: BookingSlot? = nil,
        validity: (from: Timestamp, until: Timestamp)? = nil,
        statusURL: String,
        holder: Holder? = nil,
        at now: Timestamp,
        check: (@Sendable () throws -> Void)? = nil
    ) async throws -> AppTicket {
        let live = try await require(store)
        let told = kind == .app ? live.wait(position: live.state.lineLength(at: now), at: now) : nil
        var issued = try await database.issue(
            kind: kind,
            store: live.record,
            slot: slot,
            told: told,
            validity: validity,
            statusURL: statusURL,
            holder: holder,
            at: now,
            check: check
        ) { [self] added in applyCommitted(added, store: store) }
        // A replica reads its own write before it answers (on PostgreSQL, commits of concurrent requests can
        // report out of order: one that came before a gap is applied once the missing part has been read).
        try await catchUp(store, through: issued.sequence)
        issued.told = told
        return issued
    }

    /// Runs right after a commit (on SQLite's writer, in commit order). Applies the events that come next in
    /// the store's log; when they are ahead of it (another commit's callback has not run yet, or another
    /// replica appended in between), reads the missing part from the database.
    private func applyCommitted(_ added: [StoreEvent], store: StoreID) {
        guard apply(added, store: store), let last = added.last?.sequence else { return }
        Task { try? await catchUp(store, through: last) }
    }

    /// Reads the store's log beyond what this process applied and applies it, in order, until it holds
    /// `sequence` (a committed one); without one, everything committed before the call.
    ///
    /// One read of a store at a time: callers join the read under way instead of each reading the same part
    /// (every request of a batch whose commit came after another replica's, every notification). A read
    /// that began before the call may end short of what the caller needs: it then joins or begins the next.
    public func catchUp(_ store: StoreID, through sequence: Int64 = .max) async throws {
        let asked = reads.withLock { $0.begun }
        while let last = self.store(store)?.lastSequence, last < sequence {
            let read = reads.withLock { state -> (number: Int, task: Task<Void, any Error>) in
                if let running = state.running[store] { return running }
                state.begun += 1
                let number = state.begun
                let task = Task { [self] in
                    defer { reads.withLock { if $0.running[store]?.number == number { $0.running[store] = nil } } }
                    guard var last = self.store(store)?.lastSequence else { return }
                    logReads.add(1, ordering: .relaxed)
                    ReplicaMetrics.logReads.increment()
                    // A page at a time: a store far behind (registered elsewhere long ago) is never one array.
                    while true {
                        let page = try await database.events(store: store, after: last, limit: Self.pageSize)
                        _ = apply(page, store: store)
                        guard page.count == Self.pageSize, let next = page.last?.sequence else { break }
                        last = next
                    }
                }
                state.running[store] = (number, task)
                return (number, task)
            }
            try await read.task.value
            // Begun after the call: it read everything committed before.
            if read.number > asked { return }
        }
    }

    /// Another replica's committed events, as its notification carried them: applied without reading the log,
    /// unless they come after a gap (a notification without its events, lost while the connection was down),
    /// which is read.
    public func follow(_ events: [StoreEvent], store: StoreID, through last: Int64) async throws {
        _ = apply(events, store: store)
        try await catchUp(store, through: last)
    }

    /// Applies each event that is the next one of the store's log (others were applied already, or come after
    /// a gap) and wakes the store's waiters. True when `events` went past a gap.
    private func apply(_ events: [StoreEvent], store: StoreID) -> Bool {
        var scored: [(told: WaitRange, waited: Duration)] = []
        var change = TicketIndex.Change()
        let (feed, behind) = live.withLock { stores -> (ChangeFeed?, Bool) in
            // In place: copying the entry out would copy the whole queue on every commit.
            guard let last = stores[store]?.lastSequence else { return (nil, false) }
            var next = last + 1
            for event in events where event.sequence == next {
                if stores[store] != nil, let score = change.apply(event, to: &stores[store]!) { scored.append(score) }
                next += 1
            }
            stores[store]?.lastSequence = next - 1
            // Under the queues' lock: whoever sees the new sequence finds its tickets in the index too (a
            // request waiting for its own write looks its ticket up as soon as the sequence is there).
            tickets.update(change, store: store)
            return (next - 1 > last ? stores[store]?.changes : nil, (events.last?.sequence ?? 0) >= next)
        }
        estimates.record(scored, store: store)
        feed?.notify()
        return behind
    }

    /// The log after `sequence`; when there is nothing yet, waits up to `wait` for it (a long-poll).
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
        return try await database.events(store: store, after: sequence, limit: limit)
    }
}
