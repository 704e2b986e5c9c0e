import Foundation
import GRDB
import KioskCore
import ServiceSupport

extension SQLiteStorage {
    /// A manager's stored password and store.
    public func manager(_ username: String) async throws -> (store: StoreID, password: PasswordHash)? {
        try await pool.read { db in
            guard
                let row = try Row.fetchOne(db, sql: "SELECT * FROM managers WHERE username = ?", arguments: [username]),
                let store = UUID(uuidString: row["store"])
            else { return nil }
            return (store, PasswordHash(hash: row["password_hash"], salt: row["salt"]))
        }
    }

    /// Opens a session: a random token (only its hash is kept) that expires.
    public func openSession(username: String, expires: Timestamp) async throws -> String {
        let token = Secrets.token()
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM sessions WHERE expires_at < ?",
                arguments: [clock.now().milliseconds]
            )
            try db.execute(
                sql: "INSERT INTO sessions (token_hash, username, expires_at) VALUES (?, ?, ?)",
                arguments: [Secrets.hash(token), username, expires.milliseconds]
            )
        }
        return token
    }

    /// The manager and store of a session token that has not expired.
    public func session(_ token: String, at now: Timestamp) throws -> (username: String, store: StoreID)? {
        try pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT s.username, m.store FROM sessions s JOIN managers m ON m.username = s.username
                        WHERE s.token_hash = ? AND s.expires_at > ?
                        """,
                    arguments: [Secrets.hash(token), now.milliseconds]
                ), let store = UUID(uuidString: row["store"])
            else { return nil }
            return (row["username"], store)
        }
    }

    /// Ends a session (logout): its token stops working at once. False when there was no such session.
    public func closeSession(_ token: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM sessions WHERE token_hash = ?", arguments: [Secrets.hash(token)])
            return db.changesCount > 0
        }
    }

    public func endAdminSession(_ token: String, expires: Timestamp) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM ended_admin_sessions WHERE expires_at < ?",
                arguments: [clock.now().milliseconds]
            )
            try db.execute(
                sql: "INSERT OR IGNORE INTO ended_admin_sessions (token_hash, expires_at) VALUES (?, ?)",
                arguments: [Secrets.hash(token), expires.milliseconds]
            )
        }
    }

    public func adminSessionEnded(_ token: String) throws -> Bool {
        try pool.read { db in
            try Bool.fetchOne(
                db,
                sql: "SELECT 1 FROM ended_admin_sessions WHERE token_hash = ?",
                arguments: [Secrets.hash(token)]
            ) ?? false
        }
    }
}
