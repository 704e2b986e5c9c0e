import Foundation
import KioskCore
import PostgresNIO

extension PostgresStorage {
    public func issue(
        _ issue: ServerIssue,
        holder: Holder?,
        check: (@Sendable () throws -> Void)?,
        onCommit: @escaping @Sendable ([StoreEvent]) -> Void
    ) async throws -> IssuedTicket {
        guard
            case .issued(let ticket, let sequence) = try await commits.submit(
                .issue(PostgresCommits.Issue(rule: issue, holder: holder)),
                store: issue.store,
                check: check,
                onCommit: onCommit
            )
        else { throw StorageFailure(description: "an issue came back as an append") }
        return IssuedTicket(ticket: ticket, sequence: sequence)
    }
}
