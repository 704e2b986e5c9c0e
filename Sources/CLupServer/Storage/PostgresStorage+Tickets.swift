import Foundation
import KioskCore
import PostgresNIO

extension PostgresStorage {
    public func issue(_ order: IssueOrder, onCommit: @escaping CommitHook) async throws -> IssuedTicket {
        let store = order.rule.store
        guard
            case .issued(let ticket, let sequence) = try await commits.submit(
                .issue(order),
                store: store,
                onCommit: onCommit
            )
        else { throw StorageFailure(description: "an issue came back as an append") }
        return IssuedTicket(ticket: ticket, sequence: sequence)
    }
}
