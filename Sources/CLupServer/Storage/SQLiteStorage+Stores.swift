import Crypto
import Foundation
import GRDB
import KioskCore
import ServiceSupport

extension SQLiteStorage {
    /// Registers a store and its manager account in one transaction (R10). A store with the same name and
    /// address is refused (409), as is a manager name already taken.
    public func register(
        _ profile: StoreProfile,
        manager: String,
        passwordHash: PasswordHash,
        at now: Timestamp
    )
        throws -> StoreRecord
    {
        let record = StoreRecord(id: .v7(at: now), profile: profile, signer: TicketSigner(), nextSequence: 1)
        try pool.write { db in
            if try Bool.fetchOne(
                db,
                sql: "SELECT 1 FROM stores WHERE name = ? AND address = ?",
                arguments: [profile.name, profile.address]
            ) == true {
                throw StorageRefusal.storeRegistered(name: profile.name)
            }
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM managers WHERE username = ?", arguments: [manager]) == true {
                throw StorageRefusal.managerNameTaken(manager)
            }
            try db.execute(
                sql: """
                    INSERT INTO stores (id, name, address, latitude, longitude, profile, signing_key, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    record.id.uuidString, profile.name, profile.address, profile.location.latitude,
                    profile.location.longitude, try Self.encoder.encode(profile),
                    try vault.seal(record.signer.privateKey.rawRepresentation), now.milliseconds,
                ]
            )
            try db.execute(
                sql: "INSERT INTO managers (username, store, password_hash, salt, created_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [manager, record.id.uuidString, passwordHash.hash, passwordHash.salt, now.milliseconds]
            )
        }
        return record
    }

    /// Stores a store's changed profile (its name and address stay as registered) and appends `events` in the
    /// same transaction.
    public func setProfile(
        _ profile: StoreProfile,
        store: StoreID,
        appending events: [StoreEvent],
        onCommit: @escaping CommitHook
    ) async throws -> [AppendResult] {
        let encoded = try Self.encoder.encode(profile)
        return try await pool.write { db in
            try db.execute(sql: "UPDATE stores SET profile = ? WHERE id = ?", arguments: [encoded, store.uuidString])
            return try self.append(events, store: store, in: db, onCommit: onCommit)
        }
    }

    /// Every store (loaded at start: the server keeps each store's queue in memory).
    public func stores() throws -> [StoreRecord] {
        try stores(sql: "SELECT * FROM stores ORDER BY created_at")
    }

    public func store(_ id: StoreID) throws -> StoreRecord? {
        try stores(sql: "SELECT * FROM stores WHERE id = ?", arguments: [id.uuidString]).first
    }

    private func stores(sql: String, arguments: StatementArguments = []) throws -> [StoreRecord] {
        try pool.read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                guard let id = UUID(uuidString: row["id"]) else {
                    throw StorageFailure(description: "corrupt store row \(row["id"] as String? ?? "?")")
                }
                return StoreRecord(
                    id: id,
                    profile: try Self.decoder.decode(StoreProfile.self, from: row["profile"] as Data),
                    signer: try TicketSigner(rawRepresentation: Array(try vault.open(row["signing_key"] as Data))),
                    nextSequence: row["next_sequence"]
                )
            }
        }
    }
}
