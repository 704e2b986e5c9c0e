import Foundation
import KioskCore
import Logging
import Testing

@testable import CLupServer
@testable import Rigs

extension StorageTests {
    /// A commit that finds the replica behind its store's log (another replica's events, not heard yet) notes
    /// the store; the group's ``CatchUpAfterCommits`` reads the missing part, and nothing else does (no task of
    /// the commit's own): without the service the queue stays behind until a request reads.
    @Test func aCommitAheadOfTheQueueIsCaughtUpByTheService() async throws {
        try await Self.withDatabase(.sqlite) { open in
            let storage = try await open()
            let store = try await Self.register(in: storage)
            let logs = try await StoreQueues(database: storage)
            let elsewhere = (0..<3).map { Self.customerExited(store, at: 1_800_000_000_000 + $0) }
            _ = try await storage.append(elsewhere, store: store, onCommit: { _ in })
            let here = Self.customerExited(store, at: 1_800_000_000_010)
            _ = try await storage.append([here], store: store) { added in logs.applyCommitted(added, store: store) }

            try await Task.sleep(for: .milliseconds(300))
            #expect(logs.store(store)?.lastSequence == 0, "behind, with no service running")

            let service = Task { await CatchUpAfterCommits(logs: logs, logger: Logger(label: "test")).run() }
            defer { service.cancel() }
            let deadline = ContinuousClock.now + .seconds(10)
            while logs.store(store)?.lastSequence != 4, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(logs.store(store)?.lastSequence == 4, "the service read the three events it missed")
        }
    }
}
