import Crypto
import Foundation
import GRDB
import KioskCore

extension SQLiteStorage {
    /// The server's secret `name` (made on first use, then the same for every start and every replica that
    /// shares the database).
    public func serverKey(_ name: String) throws -> SymmetricKey {
        try pool.write { db in
            if let data = try Data.fetchOne(db, sql: "SELECT key FROM server_keys WHERE name = ?", arguments: [name]) {
                return SymmetricKey(data: data)
            }
            let key = SymmetricKey(size: .bits256)
            try db.execute(
                sql: "INSERT INTO server_keys (name, key) VALUES (?, ?)",
                arguments: [name, key.withUnsafeBytes { Data($0) }]
            )
            return key
        }
    }

    /// Holders of the tickets issued since `since` (the caller's horizon: a ticket issued earlier is over).
    public func removeHolders(issuedBefore time: Timestamp) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM ticket_holders WHERE issued_at < ?", arguments: [time.milliseconds])
            return db.changesCount
        }
    }

    public func holders(since: Timestamp) throws -> [(TicketID, Holder)] {
        try pool.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT ticket, holder FROM ticket_holders WHERE issued_at >= ?",
                arguments: [since.milliseconds]
            ).compactMap { row in
                guard let id = UUID(uuidString: row["ticket"]) else { return nil }
                return (id, Holder(hash: row["holder"]))
            }
        }
    }

    /// Records who holds a ticket being issued (inside the transaction).
    func recordHolder(_ holder: Holder, of ticket: Ticket, in db: Database) throws {
        try db.cachedStatement(
            sql: "INSERT INTO ticket_holders (ticket, store, holder, issued_at) VALUES (?, ?, ?, ?)"
        ).execute(arguments: [ticket.id.uuidString, ticket.store.uuidString, holder.hash, ticket.issuedAt.milliseconds])
    }
}
