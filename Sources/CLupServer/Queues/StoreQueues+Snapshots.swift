import Foundation
import KioskCore
import ServiceSupport

/// What a store's live state holds beyond the events of its log, as of one sequence number: the day's queue
/// (and what lives across the day's start), the traffic of the last weeks the wait model learns from, and the
/// told waits not scored yet. The replica that holds the duties' lease keeps one per store in the database
/// (``LeaseDuty/snapshotKeeper(_:lease:interval:logger:)``); a start reads it and folds only the events after it, so that start-up time and memory
/// follow a store's current day, not its history.
struct StoreSnapshot: Codable, Sendable {
    /// This form's version: a snapshot of another version is not read (the store's log is folded instead).
    static let currentVersion = 1

    var version = Self.currentVersion
    var sequence: Int64
    var state: QueueState.Snapshot
    var traffic: StoreTraffic
    var told: ToldWaits
}

extension StoreQueues.Live {
    var snapshot: StoreSnapshot {
        StoreSnapshot(sequence: lastSequence, state: state.snapshot, traffic: traffic, told: toldWaits)
    }

    /// Takes a snapshot's state; false (nothing changed) for a snapshot this version cannot read.
    mutating func restore(_ snapshot: StoreSnapshot) -> Bool {
        guard snapshot.version == StoreSnapshot.currentVersion, let state = QueueState(snapshot: snapshot.state) else {
            return false
        }
        self.state = state
        traffic = snapshot.traffic
        toldWaits = snapshot.told
        lastSequence = snapshot.sequence
        return true
    }
}

extension StoreQueues {
    /// Events read from a log at once: a start or a catch-up reads pages, never a whole log into one array.
    static let pageSize = 5_000

    /// A store as a start finds it: its last snapshot (if one was kept and reads), then its log after it, a
    /// page at a time.
    static func load(
        _ record: StoreRecord,
        database: any ServerStorage,
        callWindow: Duration
    ) async throws -> (store: Live, snapshotted: Int64) {
        var store = Live(
            record: record,
            state: QueueState(capacity: record.profile.capacity),
            lastSequence: 0,
            callWindow: callWindow
        )
        var snapshotted: Int64 = 0
        if let kept = try await database.snapshot(store: record.id),
            let snapshot = readable(kept.data, store: record.id), store.restore(snapshot)
        {
            snapshotted = snapshot.sequence
        }
        while true {
            let page = try await database.events(store: record.id, after: store.lastSequence, limit: pageSize)
            for event in page { store.apply(event) }
            guard let last = page.last?.sequence else { break }
            store.lastSequence = last
            if page.count < pageSize { break }
        }
        return (store, snapshotted)
    }

    /// A kept snapshot, or nil — said in the log — when it cannot be read (damaged, or from another version):
    /// the store is then folded from its whole log, and the next kept snapshot replaces it.
    static func readable(_ data: Data, store: StoreID) -> StoreSnapshot? {
        do {
            guard let json = SnapshotPacking.unpack(data) else { throw SnapshotPacking.Damaged() }
            return try snapshotDecoder.decode(StoreSnapshot.self, from: json)
        } catch {
            logger.warning(
                "cannot read the store's kept state: folding its whole log instead (slower start); the next snapshot replaces it",
                metadata: ["store": "\(store)", "error": "\(error)"]
            )
            return nil
        }
    }

    /// Keeps a snapshot of every store whose log went on since its last one (the duties' lease holder does,
    /// for every replica's next start). Returns how many were kept.
    @discardableResult
    public func keepSnapshots() async throws -> Int {
        var count = 0
        for store in all where store.lastSequence > (snapshotted.withLock { $0[store.record.id] } ?? 0) {
            let data = SnapshotPacking.pack(try Self.snapshotEncoder.encode(store.snapshot))
            try await database.saveSnapshot(store: store.record.id, sequence: store.lastSequence, data: data)
            snapshotted.withLock { $0[store.record.id] = store.lastSequence }
            count += 1
        }
        return count
    }

    /// After a long disconnection: a store whose kept snapshot is ahead of what this replica applied starts
    /// again from it (the events in between are not read), then follows its log.
    func restoreFromSnapshot(_ id: StoreID) async throws {
        guard let behind = store(id)?.lastSequence, let kept = try await database.snapshot(store: id),
            kept.sequence > behind + Int64(Self.pageSize),
            let snapshot = Self.readable(kept.data, store: id)
        else { return }
        let feed = live.withLock { stores -> ChangeFeed? in
            guard var store = stores[id], store.lastSequence < snapshot.sequence, store.restore(snapshot) else {
                return nil
            }
            tickets.update(.all(of: store.state), store: id)
            stores[id] = store
            return store.changes
        }
        feed?.notify()
        snapshotted.withLock { $0[id] = max($0[id] ?? 0, snapshot.sequence) }
    }

    /// Removes every store's events older than `days` that its kept snapshot covers (what is not snapshotted yet
    /// stays, however old: the next start folds it). Returns how many were removed.
    @discardableResult
    public func removeEvents(olderThan days: Int, at now: Timestamp) async throws -> Int {
        var removed = 0
        for store in all {
            guard let kept = snapshotted.withLock({ $0[store.record.id] }), kept > 0 else { continue }
            removed += try await database.removeEvents(
                store: store.record.id,
                before: now - .seconds(Int64(days) * 86_400),
                through: kept
            )
        }
        return removed
    }

    /// Forgets which holder took each ticket or booking once `days` have passed since it was issued: only the
    /// booking horizon and two days are ever read (``HolderRetention``), and a phone's token then links its
    /// visits no longer than that.
    public func removeHolders(olderThan days: Int, at now: Timestamp) async throws -> Int {
        try await database.removeHolders(issuedBefore: now - .seconds(Int64(days) * 86_400))
    }

    static let snapshotEncoder = JSONEncoder()
    static let snapshotDecoder = JSONDecoder()
}
