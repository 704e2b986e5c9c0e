import Foundation
import GRDB
import KioskCore
import ServiceSupport

/// ``ServerStorage`` in one SQLite file (WAL, `synchronous=FULL`), for one clup-server process: the embedded
/// default (a single store, `make demo`). Its one writer orders every append; app tickets issued in a rush share
/// commits (``GroupCommit``). Schema changes are versioned migrations.
public final class SQLiteStorage: ServerStorage {
    let pool: DatabasePool
    /// App tickets issued in a rush share transactions (see ``GroupCommit``).
    let groupCommit: GroupCommit
    public let path: String
    /// What the server takes as now, everywhere (``WallClock/system`` but in tests).
    public let clock: WallClock
    /// How stores' signing keys are sealed in the file.
    let vault: KeyVault

    public init(path: String, clock: WallClock = .system, vault: KeyVault = .none) throws {
        self.clock = clock
        self.vault = vault
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        configuration.busyMode = .timeout(5)
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw StorageFailure(
                description: "\(path): cannot open the server database (\(error)) — check that its directory exists "
                    + "and belongs to the clup-server user"
            )
        }
        self.path = path
        groupCommit = GroupCommit(pool: pool)
        try Self.migrator.migrate(pool)
        try sealSigningKeys()
    }

    /// Seals the signing keys stored raw or under a previous storage key (``KeyVault``).
    private func sealSigningKeys() throws {
        guard vault.isConfigured else { return }
        try pool.write { db in
            for row in try Row.fetchAll(db, sql: "SELECT id, signing_key FROM stores") {
                let stored = row["signing_key"] as Data
                guard vault.needsSealing(stored) else { continue }
                try db.execute(
                    sql: "UPDATE stores SET signing_key = ? WHERE id = ?",
                    arguments: [try vault.seal(try vault.open(stored)), row["id"] as String]
                )
            }
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: stores, accounts, devices, event log") { db in
            try db.execute(
                sql: """
                    CREATE TABLE stores (
                        id TEXT PRIMARY KEY,
                        name TEXT NOT NULL,
                        address TEXT NOT NULL,
                        latitude REAL NOT NULL,
                        longitude REAL NOT NULL,
                        profile BLOB NOT NULL,
                        signing_key BLOB NOT NULL,
                        next_sequence INTEGER NOT NULL DEFAULT 1,
                        created_at INTEGER NOT NULL,
                        UNIQUE (name, address)
                    );
                    CREATE TABLE managers (
                        username TEXT PRIMARY KEY,
                        store TEXT NOT NULL REFERENCES stores(id),
                        password_hash BLOB NOT NULL,
                        salt BLOB NOT NULL,
                        created_at INTEGER NOT NULL
                    );
                    CREATE TABLE sessions (
                        token_hash BLOB PRIMARY KEY,
                        username TEXT NOT NULL REFERENCES managers(username),
                        expires_at INTEGER NOT NULL
                    );
                    CREATE TABLE devices (
                        store TEXT NOT NULL REFERENCES stores(id),
                        id TEXT NOT NULL,
                        credential_hash BLOB NOT NULL UNIQUE,
                        public_key BLOB,
                        created_at INTEGER NOT NULL,
                        PRIMARY KEY (store, id)
                    );
                    CREATE TABLE events (
                        store TEXT NOT NULL REFERENCES stores(id),
                        sequence INTEGER NOT NULL,
                        id TEXT NOT NULL UNIQUE,
                        device TEXT NOT NULL,
                        time INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        ticket TEXT,
                        body BLOB NOT NULL,
                        PRIMARY KEY (store, sequence)
                    );
                    CREATE INDEX events_ticket ON events(ticket);
                    """
            )
        }
        migrator.registerMigration("v2: app ticket numbers") { db in
            try db.execute(
                sql: """
                    CREATE TABLE ticket_numbers (
                        store TEXT NOT NULL REFERENCES stores(id),
                        prefix TEXT NOT NULL,
                        business_day INTEGER NOT NULL,
                        last INTEGER NOT NULL,
                        PRIMARY KEY (store, prefix, business_day)
                    );
                    """
            )
        }
        migrator.registerMigration("v3: holders of app tickets and bookings, server keys") { db in
            try db.execute(
                sql: """
                    CREATE TABLE ticket_holders (
                        ticket TEXT PRIMARY KEY,
                        store TEXT NOT NULL REFERENCES stores(id),
                        holder BLOB NOT NULL,
                        issued_at INTEGER NOT NULL
                    );
                    CREATE INDEX ticket_holders_issued ON ticket_holders(issued_at);
                    CREATE TABLE server_keys (
                        name TEXT PRIMARY KEY,
                        key BLOB NOT NULL
                    );
                    """
            )
        }
        migrator.registerMigration("v4: when late events arrived") { db in
            try db.execute(
                sql: """
                    ALTER TABLE events ADD COLUMN received_at INTEGER;
                    CREATE INDEX events_late ON events(store, device, received_at) WHERE received_at IS NOT NULL;
                    """
            )
        }
        migrator.registerMigration("v5: events by time, for a day's report and export") { db in
            try db.execute(sql: "CREATE INDEX events_time ON events(store, time)")
        }
        migrator.registerMigration("v6: the system manager's ended console sessions") { db in
            try db.execute(
                sql: "CREATE TABLE ended_admin_sessions (token_hash BLOB PRIMARY KEY, expires_at INTEGER NOT NULL)"
            )
        }
        migrator.registerMigration("v7: snapshots of the stores' live state, to start from") { db in
            try db.execute(
                sql: """
                    CREATE TABLE snapshots (
                        store TEXT PRIMARY KEY REFERENCES stores(id),
                        sequence INTEGER NOT NULL,
                        data BLOB NOT NULL
                    )
                    """
            )
        }
        migrator.registerMigration("v8: kiosk roles; event ids unique within their store") { db in
            // Kiosks enrolled before roles keep doing what they did (both devices). An id is unique in its
            // store's log only: no store can claim another's (SQLite drops a column's UNIQUE only by copying).
            try db.execute(
                sql: """
                    ALTER TABLE devices ADD COLUMN role TEXT NOT NULL DEFAULT 'both';
                    CREATE TABLE events_v8 (
                        store TEXT NOT NULL REFERENCES stores(id),
                        sequence INTEGER NOT NULL,
                        id TEXT NOT NULL,
                        device TEXT NOT NULL,
                        time INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        ticket TEXT,
                        body BLOB NOT NULL,
                        received_at INTEGER,
                        PRIMARY KEY (store, sequence),
                        UNIQUE (store, id)
                    );
                    INSERT INTO events_v8 (store, sequence, id, device, time, kind, ticket, body, received_at)
                        SELECT store, sequence, id, device, time, kind, ticket, body, received_at FROM events;
                    DROP TABLE events;
                    ALTER TABLE events_v8 RENAME TO events;
                    CREATE INDEX events_ticket ON events(ticket);
                    CREATE INDEX events_late ON events(store, device, received_at) WHERE received_at IS NOT NULL;
                    CREATE INDEX events_time ON events(store, time);
                    """
            )
        }
        migrator.registerMigration("v9: kiosks pairing by a printed code") { db in
            try db.execute(sql: PairingColumns.sqlite)
        }
        migrator.registerMigration("v10: a ticket id belongs to one store") { db in
            try db.execute(sql: IssuedTickets.sqlite)
        }
        migrator.registerMigration("v11: Web Push subscriptions") { db in
            try db.execute(sql: PushColumns.sqlite)
        }
        return migrator
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
    static let decoder = JSONDecoder()
}
