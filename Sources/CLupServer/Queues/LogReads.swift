import KioskCore
import Synchronization

/// The reads of stores' logs under way, one a store: a caller joins the read running for its store instead of
/// reading the same part again (every request of a batch whose commit came after another replica's, every
/// notification). Reads are numbered as they begin, so a caller can tell a read that began after it asked
/// (which saw everything committed before) from one that was already running (which may end short).
final class LogReads: Sendable {
    private let state = Mutex<(begun: Int, running: [StoreID: (number: Int, task: Task<Void, any Error>)])>(
        (0, [:])
    )
    /// Reads begun since the start.
    var begun: Int { state.withLock { $0.begun } }

    /// The read of `store` under way, or a new one running `read`; its number and task.
    func join(
        _ store: StoreID,
        orBegin read: @escaping @Sendable () async throws -> Void
    ) -> (number: Int, task: Task<Void, any Error>) {
        state.withLock { state in
            if let running = state.running[store] { return running }
            state.begun += 1
            let number = state.begun
            let task = Task { [self] in
                defer { finished(store, number: number) }
                try await read()
            }
            state.running[store] = (number, task)
            return (number, task)
        }
    }

    private func finished(_ store: StoreID, number: Int) {
        state.withLock { if $0.running[store]?.number == number { $0.running[store] = nil } }
    }
}
