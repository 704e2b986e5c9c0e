import Synchronization

/// Group commit, one queue for both backends: the writes that arrive for a key (a store on PostgreSQL, the one
/// writer on SQLite) while its last batch is being committed wait, and go together in its next one — one
/// commit (one fsync, one round trip, one turn at a lock) for all of them instead of one each.
///
/// Order is kept: a key's batches are committed one after the other, in the order their writes came, and each
/// write's caller resumes once its batch is committed (and, on PostgreSQL, the memory followed it). A write that
/// must go `alone` (it checks state the earlier writes change) is a batch of its own. The first writer to find
/// its key idle commits the batches until none waits, then the key is idle again: no task outlives the writes.
final class CommitBatches<Key: Hashable & Sendable, Item: Sendable, Outcome: Sendable>: Sendable {
    private struct Waiting: Sendable {
        let item: Item
        let resume: @Sendable (Result<Outcome, any Error>) -> Void
    }

    /// The most one batch takes: bounds a transaction's length and its arrays.
    let limit: Int
    /// Whether an item goes in a batch of its own.
    let alone: @Sendable (Item) -> Bool
    private let queues = Mutex<[Key: [Waiting]]>([:])

    /// Commits one batch: an outcome for each item, in order (a failure of the whole batch is each item's).
    typealias Commit = @Sendable (Key, [Item]) async -> [Result<Outcome, any Error>]

    init(limit: Int, alone: @escaping @Sendable (Item) -> Bool = { _ in false }) {
        self.limit = limit
        self.alone = alone
    }

    /// Commits `item` in `key`'s next batch; what came of it. `commit` is the queue's one way to commit (its
    /// owner's), given with each write because the owner cannot hand itself over before it exists.
    func submit(_ item: Item, key: Key, commit: @escaping Commit) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            let waiting = Waiting(item: item) { continuation.resume(with: $0) }
            let lead = queues.withLock { queues in
                let idle = queues[key] == nil
                queues[key, default: []].append(waiting)
                return idle
            }
            if lead { Task { await self.flush(key, commit: commit) } }
        }
    }

    private func flush(_ key: Key, commit: Commit) async {
        while let batch = next(key) {
            let outcomes = await commit(key, batch.map(\.item))
            for (waiting, outcome) in zip(batch, outcomes) { waiting.resume(outcome) }
        }
    }

    /// The key's next batch — the waiting writes up to the first that goes alone, or that one by itself — or nil,
    /// and the key idle, when none waits.
    private func next(_ key: Key) -> [Waiting]? {
        queues.withLock { queues -> [Waiting]? in
            guard let waiting = queues[key], !waiting.isEmpty else {
                queues[key] = nil
                return nil
            }
            var count = 1
            if !alone(waiting[0].item) {
                while count < min(waiting.count, limit), !alone(waiting[count].item) { count += 1 }
            }
            queues[key]?.removeFirst(count)
            return Array(waiting.prefix(count))
        }
    }
}
