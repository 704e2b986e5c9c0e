import KioskCore
import Synchronization

/// The station's in-memory queue state: the fold of the local log, updated as events are appended.
public final class QueueReplica: Sendable {
    private let state: Mutex<QueueState>
    let changes: ChangeFeed

    public init(store: LocalStore, capacity: Int, changes: ChangeFeed = ChangeFeed()) throws {
        state = Mutex(QueueState(capacity: capacity, events: try store.events()))
        self.changes = changes
    }

    public func apply(_ event: StoreEvent) {
        apply(CollectionOfOne(event))
    }

    /// Applies events already in the log, then tells the live pages once.
    public func apply(_ events: some Collection<StoreEvent>) {
        guard !events.isEmpty else { return }
        state.withLock { state in
            for event in events { state.apply(event) }
        }
        changes.notify()
    }

    public var snapshot: QueueState { state.withLock { $0 } }
}
