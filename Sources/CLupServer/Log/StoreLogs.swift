import Foundation
import KioskCore
import Synchronization

/// Every store's queue in memory: the same KioskCore reducer the kiosks run, folded over the store's log
/// in sequence order, and kept in step with the database (events are applied after their commit, in the
/// writer's order). Long-polls and event streams wait on a store's ``ChangeFeed``.
public final class StoreLogs: Sendable {
    public struct Live: Sendable {
        public var record: ServerDatabase.StoreRecord
        public var state: QueueState
        public var lastSequence: Int64
        public let changes: ChangeFeed
    }

    let database: ServerDatabase
    private let live: Mutex<[StoreID: Live]>

    /// The device id the server signs app tickets and writes its own events (expiries) as.
    public static let serverDevice: DeviceID = "clup-server"

    public init(database: ServerDatabase) throws {
        self.database = database
        var stores: [StoreID: Live] = [:]
        for record in try database.stores() {
            let events = try database.events(store: record.id, after: 0, limit: .max)
            stores[record.id] = Live(
                record: record,
                state: QueueState(capacity: record.profile.capacity, events: events),
                lastSequence: events.last?.sequence ?? 0,
                changes: ChangeFeed()
            )
        }
        live = Mutex(stores)
    }

    public func add(_ record: ServerDatabase.StoreRecord) {
        live.withLock {
            $0[record.id] = Live(
                record: record,
                state: QueueState(capacity: record.profile.capacity),
                lastSequence: 0,
                changes: ChangeFeed()
            )
        }
    }

    public func store(_ id: StoreID) -> Live? { live.withLock { $0[id] } }

    public var all: [Live] { live.withLock { Array($0.values) } }

    /// Appends events to a store's log (idempotent by event id) and applies the new ones.
    public func append(_ events: [StoreEvent], store: StoreID) throws -> [ServerDatabase.Appended] {
        guard let feed = self.store(store)?.changes else { throw APIError.notFound("store \(store)") }
        return try database.append(events, store: store) { [self] added in
            live.withLock { stores in
                guard var entry = stores[store] else { return }
                for event in added { entry.state.apply(event) }
                entry.lastSequence = added.last?.sequence ?? entry.lastSequence
                stores[store] = entry
            }
            feed.notify()
        }
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
        guard let feed = self.store(store)?.changes else { throw APIError.notFound("store \(store)") }
        if wait > .zero {
            _ = await feed.wait(timeout: wait) { [weak self] in (self?.store(store)?.lastSequence ?? 0) > sequence }
        }
        return try database.events(store: store, after: sequence, limit: limit)
    }
}
