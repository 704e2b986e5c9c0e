import KioskCore
import Synchronization

/// The station's in-memory queue state: the fold of the local log, updated as events are appended.
public final class QueueReplica: Sendable {
    private let state: Mutex<QueueState>

    public init(store: LocalStore, capacity: Int) throws {
        state = Mutex(QueueState(capacity: capacity, events: try store.events()))
    }

    public func apply(_ event: StoreEvent) {
        state.withLock { $0.apply(event) }
    }

    public var snapshot: QueueState { state.withLock { $0 } }
}
