import GRDB
import Synchronization

/// Group commit: writes that arrive while the database writer is busy are run together in its next
/// transaction, each in a savepoint of its own, and share one commit (one fsync) instead of paying one
/// each. An idle server commits a lone write at once; a rush of app tickets costs a few fsyncs, not
/// thousands.
///
/// Order is kept: writes run in the order they were submitted, and every later transaction starts after
/// the earlier one committed. A write that throws is rolled back alone (its savepoint) and its caller gets
/// the error; the others commit. Writes must not rely on in-memory state that an earlier write of the
/// same group would change only after the commit (that is what ``SQLiteStorage/append(_:store:onCommit:)``
/// callbacks do): such writes go through the pool directly.
final class GroupCommit: Sendable {
    private struct Waiting: Sendable {
        /// Runs inside the shared transaction; returns what to do once it is committed.
        let run: @Sendable (Database) throws -> @Sendable () -> Void
        let fail: @Sendable (any Error) -> Void
    }

    private let pool: DatabasePool
    private let state = Mutex<(waiting: [Waiting], flushing: Bool)>(([], false))

    init(pool: DatabasePool) {
        self.pool = pool
    }

    /// Runs `work` in the next group transaction and returns its result once that transaction committed.
    func write<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let waiting = Waiting(
                run: { db in
                    let value = try work(db)
                    return { continuation.resume(returning: value) }
                },
                fail: { continuation.resume(throwing: $0) }
            )
            let lead = state.withLock { state in
                state.waiting.append(waiting)
                defer { state.flushing = true }
                return !state.flushing
            }
            // The first writer to find nobody flushing starts a flush that runs until the queue is empty.
            if lead { Task { await self.flush() } }
        }
    }

    private func flush() async {
        while true {
            let group = state.withLock { state -> [Waiting] in
                if state.waiting.isEmpty { state.flushing = false }
                defer { state.waiting.removeAll(keepingCapacity: true) }
                return state.waiting
            }
            if group.isEmpty { return }
            do {
                let outcomes = try await pool.write { db in
                    group.map { waiting -> Result<@Sendable () -> Void, any Error> in
                        var done: (@Sendable () -> Void)?
                        do {
                            try db.inSavepoint {
                                done = try waiting.run(db)
                                return .commit
                            }
                            return .success(done!)
                        } catch {
                            return .failure(error)
                        }
                    }
                }
                for (waiting, outcome) in zip(group, outcomes) {
                    switch outcome {
                    case .success(let done): done()
                    case .failure(let error): waiting.fail(error)
                    }
                }
            } catch {
                // The transaction itself failed (e.g. the disk is full): nothing of the group was written.
                for waiting in group { waiting.fail(error) }
            }
        }
    }
}
