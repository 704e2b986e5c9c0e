import Crypto
import Foundation
import KioskCore
import Logging
import PostgresNIO
import ServiceSupport

extension PostgresStorage {
    // MARK: Stores

    public func register(
        _ profile: StoreProfile,
        manager: String,
        passwordHash: PasswordHash,
        at now: Timestamp
    ) async throws -> StoreRecord {
        let record = StoreRecord(id: .v7(at: now), profile: profile, signer: TicketSigner(), nextSequence: 1)
        let encoded = try Self.encoder.encode(profile)
        let key = try vault.seal(Data(record.signer.privateKey.rawRepresentation))
        do {
            try await transaction { connection in
                try await connection.run(
                    """
                    INSERT INTO stores (id, name, address, latitude, longitude, profile, signing_key, created_at)
                    VALUES (\(record.id), \(profile.name), \(profile.address), \(profile.location.latitude),
                            \(profile.location.longitude), \(encoded), \(key), \(now.milliseconds))
                    """,
                    logger: logger
                )
                try await connection.run(
                    """
                    INSERT INTO managers (username, store, password_hash, salt, created_at)
                    VALUES (\(manager), \(record.id), \(passwordHash.hash), \(passwordHash.salt), \(now.milliseconds))
                    """,
                    logger: logger
                )
                try await Self.notifyStoreChanged(record.id, on: connection, logger: logger)
            }
        } catch  where Self.isUniqueViolation(error) {
            // Which one: the constraint names it (stores_name_address_key or managers_pkey).
            if (error as? PSQLError)?.serverInfo?[.constraintName]?.hasPrefix("managers") == true {
                throw StorageRefusal.managerNameTaken(manager)
            }
            throw StorageRefusal.storeRegistered(name: profile.name)
        }
        return record
    }

    /// The profile and its events in one batch of the store's commits (``PostgresCommits``), alone in it.
    public func setProfile(
        _ profile: StoreProfile,
        store: StoreID,
        appending events: [StoreEvent],
        onCommit: @escaping CommitHook
    ) async throws -> [AppendResult] {
        let work = PostgresCommits.Work.profile(profile, events)
        guard case .appended(let results) = try await commits.submit(work, store: store, onCommit: onCommit) else {
            throw StorageFailure(description: "a profile's change came back as an issue")
        }
        return results
    }

    public func stores() async throws -> [StoreRecord] {
        try await stores("SELECT id, profile, signing_key, next_sequence FROM stores ORDER BY created_at, id")
    }

    public func store(_ id: StoreID) async throws -> StoreRecord? {
        try await stores("SELECT id, profile, signing_key, next_sequence FROM stores WHERE id = \(id)").first
    }

    private func stores(_ query: PostgresQuery) async throws -> [StoreRecord] {
        var records: [StoreRecord] = []
        let rows = try await pool.query(query)
        for (id, profile, key, next) in try rows.decode((UUID, Data, Data, Int64).self) {
            records.append(
                StoreRecord(
                    id: id,
                    profile: try Self.decoder.decode(StoreProfile.self, from: profile),
                    signer: try TicketSigner(rawRepresentation: Array(try vault.open(key))),
                    nextSequence: next
                )
            )
        }
        return records
    }

    /// Tells the other replicas (``LogFollower``) to read the store list again, once the change commits.
    static func notifyStoreChanged(_ store: StoreID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.run("SELECT pg_notify(\(eventsChannel), \("s:\(store.uuidString)"))", logger: logger)
    }

    // MARK: Managers

    public func manager(_ username: String) async throws -> (store: StoreID, password: PasswordHash)? {
        let rows = try await pool.query(
            "SELECT store, password_hash, salt FROM managers WHERE username = \(username)"
        )
        for (store, hash, salt) in try rows.decode((UUID, Data, Data).self) {
            return (store, PasswordHash(hash: hash, salt: salt))
        }
        return nil
    }

    public func openSession(username: String, expires: Timestamp) async throws -> String {
        let token = Secrets.token()
        let now = clock.now().milliseconds
        try await transaction { connection in
            try await connection.run("DELETE FROM sessions WHERE expires_at < \(now)", logger: logger)
            try await connection.run(
                """
                INSERT INTO sessions (token_hash, username, expires_at)
                VALUES (\(Secrets.hash(token)), \(username), \(expires.milliseconds))
                """,
                logger: logger
            )
        }
        return token
    }

    public func session(_ token: String, at now: Timestamp) async throws -> (username: String, store: StoreID)? {
        let rows = try await pool.query(
            """
            SELECT s.username, m.store FROM sessions s JOIN managers m ON m.username = s.username
            WHERE s.token_hash = \(Secrets.hash(token)) AND s.expires_at > \(now.milliseconds)
            """
        )
        for (username, store) in try rows.decode((String, UUID).self) { return (username, store) }
        return nil
    }

    public func closeSession(_ token: String) async throws -> Bool {
        let rows = try await pool.query(
            "DELETE FROM sessions WHERE token_hash = \(Secrets.hash(token)) RETURNING 1"
        )
        return !rows.isEmpty
    }

    public func endAdminSession(_ token: String, expires: Timestamp) async throws {
        _ = try await pool.query("DELETE FROM ended_admin_sessions WHERE expires_at < \(clock.now().milliseconds)")
        _ = try await pool.query(
            """
            INSERT INTO ended_admin_sessions (token_hash, expires_at)
            VALUES (\(Secrets.hash(token)), \(expires.milliseconds)) ON CONFLICT DO NOTHING
            """
        )
    }

    public func adminSessionEnded(_ token: String) async throws -> Bool {
        !(try await pool.query("SELECT 1 FROM ended_admin_sessions WHERE token_hash = \(Secrets.hash(token))")).isEmpty
    }
}
