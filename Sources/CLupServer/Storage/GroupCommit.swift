import GRDB

/// Group commit on SQLite (``CommitBatches``): writes that arrive while the database writer is busy are run
/// together in its next transaction, each in a savepoint of its own, and share one commit (one fsync) instead of
/// paying one each. An idle server commits a lone write at once; a rush of app tickets costs a few fsyncs, not
/// thousands.
///
/// A write that throws is rolled back alone (its savepoint) and its caller gets the error; the others commit.
/// Writes must not rely on in-memory state that an earlier write of the same group would change only after the
/// commit (that is what ``SQLiteStorage/append(_:store:onCommit:)`` callbacks do): such writes go through the
/// pool directly.
final class GroupCommit: Sendable {
    /// A write: runs inside the shared transaction.
    typealias Job = @Sendable (Database) throws -> any Sendable

    private let batches = CommitBatches<Int, Job, any Sendable>(limit: 1000)
    private let commit: CommitBatches<Int, Job, any Sendable>.Commit

    init(pool: DatabasePool) {
        commit = { _, jobs in
            do {
                return try await pool.write { db in
                    jobs.map { job -> Result<any Sendable, any Error> in
                        var value: (any Sendable)?
                        do {
                            try db.inSavepoint {
                                value = try job(db)
                                return .commit
                            }
                            return .success(value!)
                        } catch {
                            return .failure(error)
                        }
                    }
                }
            } catch {
                // The transaction itself failed (e.g. the disk is full): nothing of the group was written.
                return jobs.map { _ in .failure(error) }
            }
        }
    }

    /// Runs `work` in the next group transaction and returns its result once that transaction committed.
    func write<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        // The only key: SQLite has one writer.
        guard let value = try await batches.submit({ try work($0) }, key: 0, commit: commit) as? T else {
            throw StorageFailure(description: "a grouped write came back with another write's result")
        }
        return value
    }
}
