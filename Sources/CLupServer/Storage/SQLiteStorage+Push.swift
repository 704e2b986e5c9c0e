import Foundation
import GRDB
import KioskCore

extension SQLiteStorage {
    public func savePush(_ subscription: PushSubscription) async throws {
        let record = try PushColumns.encode(subscription)
        try await pool.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO push_subscriptions (ticket, store, record) VALUES (?, ?, ?)",
                arguments: [subscription.ticket.uuidString, subscription.store.uuidString, record]
            )
        }
    }

    public func removePush(ticket: TicketID) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM push_subscriptions WHERE ticket = ?", arguments: [ticket.uuidString])
            return db.changesCount > 0
        }
    }

    public func pushSubscriptions() async throws -> [PushSubscription] {
        try await pool.read { db in
            try Data.fetchAll(db, sql: "SELECT record FROM push_subscriptions").compactMap(PushColumns.decode)
        }
    }
}
