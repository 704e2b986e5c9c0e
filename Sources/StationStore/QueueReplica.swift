import Foundation
import KioskCore
import ServiceSupport
import Synchronization

/// The station's in-memory queue: the same reducer as the server, folded over the server's log in the
/// server's order (what sync pulled), with this station's events the server has not confirmed yet applied on
/// top. When the server's order arrives it wins: the replica refolds its pending events over it. Without a
/// server every event is pending and the replica is the fold of the local log.
public final class QueueReplica: Sendable {
    private struct Folds {
        /// The fold of the pulled log, in sequence order.
        var confirmed: QueueState
        /// Local events not yet seen in the pulled log (only those that change state), in local order.
        var pending: [StoreEvent]
        /// `confirmed` with `pending` on top: what the station decides with.
        var current: QueueState
    }

    private let folds: Mutex<Folds>
    /// Everything the station's pages follow: the queue's changes and the statuses.
    public let changes: ChangeFeed
    /// The queue's changes alone (each also one of ``changes``): what ``CallBoard`` looks after.
    public let queueChanges: ChangeFeed

    /// From the kept fold of the server's log (``LocalStore/keptConfirmedFold(capacity:)``) and what was pulled
    /// after it, or from the whole pulled log; this station's unconfirmed events on top.
    public init(store: LocalStore, capacity: Int, changes: ChangeFeed = ChangeFeed()) throws {
        var base = QueueState(capacity: capacity)
        var kept: Int64 = 0
        if let fold = try store.keptConfirmedFold(capacity: capacity),
            let snapshot = try? JSONDecoder().decode(QueueState.Snapshot.self, from: fold.data),
            let state = QueueState(snapshot: snapshot)
        {
            base = state
            kept = fold.sequence
        }
        let (confirmed, pending) = try store.replicaEvents(after: kept)
        for event in confirmed { base.apply(event) }
        var current = base
        for event in pending { current.apply(event) }
        folds = Mutex(Folds(confirmed: base, pending: pending, current: current))
        self.changes = changes
        queueChanges = ChangeFeed(alsoNotifying: changes)
    }

    @_spi(Seeding) public func apply(_ event: StoreEvent) {
        apply(CollectionOfOne(event))
    }

    /// Applies events this station just wrote to its log, then tells the live pages once.
    @_spi(Seeding) public func apply(_ events: some Collection<StoreEvent>) {
        let changing = events.filter(QueueState.changesState)
        guard !changing.isEmpty else { return }
        folds.withLock { folds in
            for event in changing {
                folds.pending.append(event)
                folds.current.apply(event)
            }
        }
        queueChanges.notify()
    }

    /// Applies a page of the server's log (in sequence order, own events included): the server's order
    /// replaces the local one for every event it contains.
    func applyPulled(_ events: [StoreEvent]) {
        guard !events.isEmpty else { return }
        folds.withLock { folds in
            for event in events { folds.confirmed.apply(event) }
            let seen = Set(events.map(\.id))
            folds.pending.removeAll { seen.contains($0.id) }
            var current = folds.confirmed
            for event in folds.pending { current.apply(event) }
            folds.current = current
        }
        queueChanges.notify()
    }

    /// Drops a pending event the server refused for good (``LocalStore/quarantine(_:reason:at:)``): the queue
    /// is refolded without it.
    func drop(_ id: EventID) {
        let dropped = folds.withLock { folds in
            guard folds.pending.contains(where: { $0.id == id }) else { return false }
            folds.pending.removeAll { $0.id == id }
            var current = folds.confirmed
            for event in folds.pending { current.apply(event) }
            folds.current = current
            return true
        }
        if dropped { queueChanges.notify() }
    }

    public var snapshot: QueueState { folds.withLock { $0.current } }

    /// The fold of the server's log alone (what the server's queue is, as far as this station has read).
    public var confirmedSnapshot: QueueState { folds.withLock { $0.confirmed } }

    public var pendingCount: Int { folds.withLock { $0.pending.count } }
}
