import Foundation
import KioskCore
import PostgresNIO

extension PostgresStorage {
    public func savePush(_ subscription: PushSubscription) async throws {
        let record = try PushColumns.encode(subscription)
        try await pool.query(
            """
            INSERT INTO push_subscriptions (ticket, store, record)
            VALUES (\(subscription.ticket), \(subscription.store), \(record))
            ON CONFLICT (ticket) DO UPDATE SET record = EXCLUDED.record
            """
        )
    }

    public func removePush(ticket: TicketID) async throws -> Bool {
        let rows = try await pool.query("DELETE FROM push_subscriptions WHERE ticket = \(ticket) RETURNING 1")
        return try rows.decode(Int32.self).reduce(0) { count, _ in count + 1 } > 0
    }

    public func pushSubscriptions() async throws -> [PushSubscription] {
        let rows = try await pool.query("SELECT record FROM push_subscriptions")
        return try rows.decode(Data.self).compactMap(PushColumns.decode)
    }
}
