import Foundation
import GRDB
import KioskCore

extension SQLiteStorage {
    /// Issues an app ticket or a booking: reserves the next number of the business day for its prefix, and
    /// writes who holds it and the `ticketIssued` event in the store's log — one transaction, so numbers are never
    /// reused.
    /// `check` runs first on the database writer (e.g. that a slot still has room) and may refuse: it sees
    /// every earlier issue applied in memory, so such an issue gets a transaction of its own. Without a
    /// check, issues waiting for the writer share one (``GroupCommit``).
    public func issue(_ order: IssueOrder, onCommit: @escaping CommitHook) async throws -> IssuedTicket {
        let (issue, holder, check) = (order.rule, order.holder, order.check)
        let write: @Sendable (Database) throws -> IssuedTicket = { db in
            // On the writer, after every earlier commit was applied in memory: a check here sees them all.
            try check?()
            let arguments: StatementArguments = [issue.store.uuidString, issue.prefix, issue.day.number]
            let last =
                try Int.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT last FROM ticket_numbers WHERE store = ? AND prefix = ? AND business_day = ?"
                    ),
                    arguments: arguments
                ) ?? 0
            let (ticket, event) = try issue.made(number: last + 1)
            try db.cachedStatement(
                sql: """
                    INSERT INTO ticket_numbers (store, prefix, business_day, last) VALUES (?, ?, ?, ?)
                    ON CONFLICT (store, prefix, business_day) DO UPDATE SET last = excluded.last
                    """
            ).execute(arguments: arguments + [last + 1])
            if let holder { try self.recordHolder(holder, of: ticket, in: db) }
            let appended = try self.append([event], store: issue.store, in: db, onCommit: onCommit)
            // Last: the commit callback `append` registered must only belong to a write that succeeded.
            return IssuedTicket(ticket: ticket, sequence: appended[0].sequence)
        }
        return check == nil ? try await groupCommit.write(write) : try await pool.write(write)
    }
}
