import Foundation
import GRDB
import KioskCore

/// Events the server refused for good (a refusal that names the event: its role, its ticket, its time): moved
/// out of the outbox, where they would stop every event behind them, into the quarantine, with the server's
/// reason, for a person to read (`/status`, the log, the metrics). A quarantined event leaves the station's
/// replica too: the queue is what the server accepted.
extension LocalStore {
    public struct Quarantined: Sendable, Equatable, Codable {
        public var event: StoreEvent
        public var reason: String
        /// Milliseconds since 1970.
        public var refusedAt: Int64
    }

    /// Moves the outbox's event `id` into the quarantine; false when it is not in the outbox (confirmed since).
    @discardableResult
    func quarantine(_ id: EventID, reason: String, at now: Timestamp) throws -> Bool {
        try db.write { db in
            try db.execute(
                sql: """
                    INSERT INTO quarantine (id, store, device, time, kind, ticket, body, reason, refused_at)
                    SELECT id, store, device, time, kind, ticket, body, ?, ? FROM events
                    WHERE id = ? AND sequence IS NULL
                    ON CONFLICT (id) DO NOTHING
                    """,
                arguments: [String(reason.utf8.prefix(1000)) ?? "", now.milliseconds, id.uuidString]
            )
            guard db.changesCount == 1 else { return false }
            try db.execute(sql: "DELETE FROM events WHERE id = ? AND sequence IS NULL", arguments: [id.uuidString])
            return true
        }
    }

    public func quarantineCount() throws -> Int {
        try db.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM quarantine") ?? 0 }
    }

    /// The quarantine, newest first (at most `limit`).
    public func quarantined(limit: Int = 100) throws -> [Quarantined] {
        try db.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM quarantine ORDER BY refused_at DESC LIMIT ?",
                arguments: [limit]
            ).map { row in
                Quarantined(event: try Self.event(row), reason: row["reason"], refusedAt: row["refused_at"])
            }
        }
    }
}
