import Crypto
import Foundation
import GRDB
import KioskCore
import ServiceSupport
import Synchronization

/// The station's SQLite database in its state directory: its signing key, the tickets it printed, and its
/// replica of the store's event log (events with no server sequence yet are the outbox).
///
/// WAL journal and `synchronous=FULL`: a transaction that hands out a ticket is on disk before it returns,
/// so after a crash or power cut no code is handed out twice and none is skipped. Schema changes are
/// versioned migrations.
public final class LocalStore: Sendable {
    let db: WatchedQueue
    public let path: String
    /// Rings when this station's own events enter the outbox (an event without a server sequence), for the
    /// sync's push: the pages' change feed rings for everything, and the push need not count the outbox at each.
    public let outboxGrew = ChangeFeed()
    /// The station's own events written so far, to tell whether the outbox grew since the push drained it.
    public let appends = Atomic<Int>(0)

    /// The printer's reserved numbers, beside the database (see ``CodeReservation``).
    public let codes: CodeReservationFile
    /// This database's own id, made with it: a reservation made from another database is kept above.
    public let databaseID: String

    /// The page size of a new database (bytes).
    static let pageSize = 1024

    public struct StoreError: Error, Sendable, CustomStringConvertible {
        public let description: String

        public init(description: String) { self.description = description }
    }

    public init(path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // 1 KiB pages for a new database (an existing one keeps its own): each commit writes every page it
            // changed to the write-ahead log, and a ticket changes about 20 (its row, its event, their indexes)
            // in four commits. With SQLite's 4 KiB pages that was 110 KB written to the card a ticket; with
            // 1 KiB, 51 KB (docs/operations.md, "Flash wear").
            try db.execute(sql: "PRAGMA page_size = \(Self.pageSize)")
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
            // 512 KiB of page cache (SQLite's default is 2 MiB): the station appends and looks up by index, so
            // the hot pages are few; on a small box the rest is memory better left to the system.
            try db.execute(sql: "PRAGMA cache_size = -512")
        }
        configuration.busyMode = .timeout(5)
        do {
            db = WatchedQueue(try DatabaseQueue(path: path, configuration: configuration), path: path)
        } catch let error as DatabaseError where Self.isDamage(error) {
            throw error  // the file is not a database (any more): see ``open(directory:now:)``
        } catch {
            throw StoreError(
                description:
                    "\(path): cannot open the kiosk database (\(error)) — check that the state directory exists "
                    + "and belongs to the kiosk user"
            )
        }
        self.path = path
        codes = CodeReservationFile(database: path)
        try Self.migrator.migrate(db.queue)
        databaseID = try db.read { try String.fetchOne($0, sql: "SELECT database_id FROM sync_state") } ?? ""
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: device key, printed tickets, event log") { db in
            try db.execute(
                sql: """
                    CREATE TABLE device (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        signing_key BLOB NOT NULL
                    );
                    CREATE TABLE events (
                        local_order INTEGER PRIMARY KEY AUTOINCREMENT,
                        id TEXT NOT NULL UNIQUE,
                        store TEXT NOT NULL,
                        device TEXT NOT NULL,
                        time INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        ticket TEXT,
                        body BLOB NOT NULL,
                        sequence INTEGER UNIQUE
                    );
                    CREATE INDEX events_ticket ON events(ticket);
                    CREATE TABLE printed_tickets (
                        id TEXT PRIMARY KEY,
                        prefix TEXT NOT NULL,
                        business_day INTEGER NOT NULL,
                        number INTEGER NOT NULL,
                        issued_at INTEGER NOT NULL,
                        qr TEXT NOT NULL,
                        printed INTEGER NOT NULL DEFAULT 0,
                        taken_at INTEGER,
                        UNIQUE (prefix, business_day, number)
                    );
                    """
            )
        }
        migrator.registerMigration("v2: the store's key ring") { db in
            try db.execute(
                sql: """
                    CREATE TABLE trusted_keys (
                        key_id TEXT PRIMARY KEY,
                        public_key BLOB NOT NULL,
                        device TEXT NOT NULL,
                        added_at INTEGER NOT NULL
                    );
                    """
            )
        }
        migrator.registerMigration("v3: sync position") { db in
            try db.execute(
                sql: """
                    CREATE TABLE sync_state (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        last_pulled INTEGER NOT NULL DEFAULT 0,
                        key_registered INTEGER NOT NULL DEFAULT 0
                    );
                    INSERT INTO sync_state (id) VALUES (1);
                    """
            )
        }
        migrator.registerMigration("v4: outbox index") { db in
            // The outbox is the few unconfirmed events of a log that grows all year: found without a scan.
            try db.execute(sql: "CREATE INDEX events_outbox ON events(local_order) WHERE sequence IS NULL")
        }
        migrator.registerMigration("v5: keys the server vouches for") { db in
            // 1: the key came from the server's ring (and leaves with it); 0: trusted by hand.
            try db.execute(sql: "ALTER TABLE trusted_keys ADD COLUMN from_server INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v6: the store's time zone") { db in
            // The IANA name clup-server gives the store (used when [store] time_zone is not set).
            try db.execute(sql: "ALTER TABLE sync_state ADD COLUMN time_zone TEXT")
        }
        migrator.registerMigration("v6: when late events reached the server") { db in
            try db.execute(sql: "ALTER TABLE events ADD COLUMN received_at INTEGER")
        }
        migrator.registerMigration("v7: tickets the presenter pulled back in") { db in
            try db.execute(sql: "ALTER TABLE printed_tickets ADD COLUMN voided_at INTEGER")
        }
        migrator.registerMigration("v8: the ticket in the printer, found without a scan") { db in
            // After every tear-off the printer asks for the ticket not taken yet: without this index SQLite read
            // every ticket the prefix ever had (all year's), and the cut came later each day.
            try db.execute(
                sql: """
                    CREATE INDEX printed_tickets_open ON printed_tickets(prefix, issued_at)
                    WHERE taken_at IS NULL AND voided_at IS NULL
                    """
            )
        }
        migrator.registerMigration("v9: the store's opening hours") { db in
            // The weekly hours clup-server gives the store (JSON), which replace the configuration's.
            try db.execute(sql: "ALTER TABLE sync_state ADD COLUMN hours TEXT")
        }
        migrator.registerMigration("v10: the store's wait model") { db in
            // The wait model clup-server learnt for the store (JSON): paper tells what the app tells.
            try db.execute(sql: "ALTER TABLE sync_state ADD COLUMN wait_model TEXT")
        }
        migrator.registerMigration("v11: the kept fold of the server's log") { db in
            // The queue as of a sequence of the pulled log: a start folds only what came after it.
            try db.execute(
                sql: """
                    CREATE TABLE kept_fold (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        sequence INTEGER NOT NULL,
                        capacity INTEGER NOT NULL,
                        data BLOB NOT NULL
                    )
                    """
            )
        }
        migrator.registerMigration("v12: the pulled log by sequence") { db in
            // A start reads what was pulled after the kept fold, not the whole table.
            try db.execute(sql: "CREATE INDEX events_sequence ON events(sequence) WHERE sequence IS NOT NULL")
        }
        migrator.registerMigration("v13: events the server refused for good") { db in
            // Set aside with the server's reason, out of the outbox (which they would block), kept for a person.
            try db.execute(
                sql: """
                    CREATE TABLE quarantine (
                        id TEXT PRIMARY KEY,
                        store TEXT NOT NULL,
                        device TEXT NOT NULL,
                        time INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        ticket TEXT,
                        body BLOB NOT NULL,
                        reason TEXT NOT NULL,
                        refused_at INTEGER NOT NULL
                    )
                    """
            )
        }
        migrator.registerMigration("v14: the database's own id") { db in
            // What the printer's reserved numbers (kioskd.codes) name: a database that is not the one they were
            // reserved from (after damage) numbers the day above them.
            try db.execute(
                sql: """
                    ALTER TABLE sync_state ADD COLUMN database_id TEXT;
                    UPDATE sync_state SET database_id = lower(hex(randomblob(16)));
                    """
            )
        }
        migrator.registerMigration("v15: the store's settings") { db in
            try db.execute(sql: "ALTER TABLE sync_state ADD COLUMN settings TEXT")
        }
        return migrator
    }

    /// SQLite's own consistency check: `["ok"]`, or what is damaged.
    public func integrityCheck() throws -> [String] { try check("integrity_check") }

    /// SQLite's quick consistency check (every page's structure, not the indexes' agreement): `["ok"]`, or
    /// what is damaged. Reads the whole file once.
    func quickCheck() throws -> [String] { try check("quick_check") }

    private func check(_ pragma: String) throws -> [String] {
        try db.read { try String.fetchAll($0, sql: "PRAGMA \(pragma)") }
    }

    // MARK: - Device key

    /// This device's ticket-signing key, made on first use (or `adopting` one, carried over from a damaged
    /// database) and kept in the database.
    public func signingKey(adopting: TicketSigner? = nil) throws -> TicketSigner {
        try db.write { db in
            if let raw = try Data.fetchOne(db, sql: "SELECT signing_key FROM device WHERE id = 1") {
                return try TicketSigner(rawRepresentation: Array(raw))
            }
            let signer = adopting ?? TicketSigner()
            try db.execute(
                sql: "INSERT INTO device (id, signing_key) VALUES (1, ?)",
                arguments: [Data(signer.privateKey.rawRepresentation)]
            )
            return signer
        }
    }

    // MARK: - Events

    static let encoder = JSONEncoder()
    static let decoder = JSONDecoder()

    func insert(_ event: StoreEvent, _ db: Database) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO events (id, store, device, time, kind, ticket, body, sequence, received_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING
                """
        )
        try statement.execute(
            arguments: [
                event.id.uuidString, event.store.uuidString, event.device, event.time.milliseconds, event.kind,
                event.ticketID?.uuidString, try Self.encoder.encode(event.storedBody), event.sequence,
                event.receivedAt?.milliseconds,
            ]
        )
        // This station's own event: the outbox grew, once the transaction commits.
        if event.sequence == nil {
            db.afterNextTransaction { [self] _ in
                appends.add(1, ordering: .sequentiallyConsistent)
                outboxGrew.notify()
            }
        }
    }

    /// Appends events made by this station (in one transaction). ``StationLog`` is the one way a station records
    /// (ids, the replica's fold, the change feed): this is not public to the stations' code. Tests and benchmarks
    /// that seed a store's log import it as `@_spi(Seeding)`.
    @_spi(Seeding) public func append(_ events: [StoreEvent]) throws {
        try db.write { db in
            for event in events { try insert(event, db) }
        }
    }

    /// The whole local log, in the order it was written here.
    public func events() throws -> [StoreEvent] {
        try db.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM events ORDER BY local_order").map(Self.event)
        }
    }

    static func event(_ row: Row) throws -> StoreEvent {
        guard let event = try StoreEvent(row: row) else {
            throw StoreError(description: "corrupt event row \(row["local_order"] as Int64? ?? -1)")
        }
        return event
    }
}
