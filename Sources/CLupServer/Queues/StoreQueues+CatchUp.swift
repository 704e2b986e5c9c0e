import KioskCore
import Logging
import ServiceSupport
import Synchronization

extension StoreQueues {
    /// Runs right after a commit (on SQLite's writer, in commit order). Applies the events that come next in
    /// the store's log; when they are ahead of it (another commit's callback has not run yet, or another
    /// replica appended in between), the store is noted for ``CatchUpAfterCommits`` to read the missing part:
    /// the writer does not wait for a read.
    func applyCommitted(_ added: [StoreEvent], store: StoreID) {
        if apply(added, store: store) { behind.add(store) }
    }

    /// Reads the store's log beyond what this process applied and applies it, in order, until it holds
    /// `sequence` (a committed one); without one, everything committed before the call.
    ///
    /// One read of a store at a time (``LogReads``): a read that began before the call may end short of what the
    /// caller needs, which then joins or begins the next.
    public func catchUp(_ store: StoreID, through sequence: Int64 = .max) async throws {
        let asked = reads.begun
        while let last = self.store(store)?.lastSequence, last < sequence {
            let read = reads.join(store) { [self] in try await readLog(of: store) }
            try await read.task.value
            // Begun after the call: it read everything committed before.
            if read.number > asked { return }
        }
    }

    /// Reads and applies the store's log beyond what this process applied, a page at a time: a store far behind
    /// (registered elsewhere long ago) is never one array.
    private func readLog(of store: StoreID) async throws {
        guard var last = self.store(store)?.lastSequence else { return }
        logReads.add(1, ordering: .relaxed)
        ReplicaMetrics.logReads.increment()
        while true {
            let page = try await database.events(store: store, after: last, limit: Self.pageSize)
            _ = apply(page, store: store)
            guard page.count == Self.pageSize, let next = page.last?.sequence else { break }
            last = next
        }
    }

    /// Another replica's committed events, as its notification carried them: applied without reading the log,
    /// unless they come after a gap (a notification without its events, lost while the connection was down),
    /// which is read.
    public func follow(_ events: [StoreEvent], store: StoreID, through last: Int64) async throws {
        _ = apply(events, store: store)
        try await catchUp(store, through: last)
    }
}
