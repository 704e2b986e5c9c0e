import KioskCore
import Synchronization

/// The stores whose commit found this replica behind their log (on PostgreSQL, commits of concurrent requests
/// can report out of order), for ``CatchUpAfterCommits`` to read: the commit's callback runs on the writer and
/// must not wait for a read, nor start a task of its own.
final class StoresBehind: Sendable {
    private let stores = Mutex<Set<StoreID>>([])
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Notes that `store`'s log is ahead of its queue here.
    func add(_ store: StoreID) {
        stores.withLock { _ = $0.insert(store) }
        continuation.yield()
    }

    /// The stores noted since the last take.
    func take() -> Set<StoreID> {
        stores.withLock { stores in
            defer { stores = [] }
            return stores
        }
    }

    /// Rings after every ``add(_:)`` (several adds before the reader looks ring once). One reader.
    var wakes: AsyncStream<Void> { stream }
}
