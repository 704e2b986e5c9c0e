import Logging
import PostgresNIO

/// The PostgreSQL schema, as versioned migrations: each runs once, in its own transaction, recorded in
/// `clup_migrations`. A transaction-level advisory lock makes replicas that start together wait for each other
/// instead of applying a migration twice. The tables match ``SQLiteStorage``'s; ids are `uuid`, times are
/// milliseconds since 1970 (`bigint`), as the API has them.
enum PostgresMigrations {
    /// Never reordered or edited once released: a change is a new entry at the end.
    static let steps: [(name: String, sql: [String])] = [
        (
            "v1: stores, accounts, devices, event log, ticket numbers, holders, server keys",
            [
                """
                CREATE TABLE stores (
                    id uuid PRIMARY KEY,
                    name text NOT NULL,
                    address text NOT NULL,
                    latitude double precision NOT NULL,
                    longitude double precision NOT NULL,
                    profile bytea NOT NULL,
                    signing_key bytea NOT NULL,
                    next_sequence bigint NOT NULL DEFAULT 1,
                    created_at bigint NOT NULL,
                    UNIQUE (name, address)
                )
                """,
                """
                CREATE TABLE managers (
                    username text PRIMARY KEY,
                    store uuid NOT NULL REFERENCES stores(id),
                    password_hash bytea NOT NULL,
                    salt bytea NOT NULL,
                    created_at bigint NOT NULL
                )
                """,
                """
                CREATE TABLE sessions (
                    token_hash bytea PRIMARY KEY,
                    username text NOT NULL REFERENCES managers(username),
                    expires_at bigint NOT NULL
                )
                """,
                "CREATE INDEX sessions_expiry ON sessions(expires_at)",
                """
                CREATE TABLE devices (
                    store uuid NOT NULL REFERENCES stores(id),
                    id text NOT NULL,
                    credential_hash bytea NOT NULL UNIQUE,
                    public_key bytea,
                    created_at bigint NOT NULL,
                    PRIMARY KEY (store, id)
                )
                """,
                """
                CREATE TABLE events (
                    store uuid NOT NULL REFERENCES stores(id),
                    sequence bigint NOT NULL,
                    id uuid NOT NULL UNIQUE,
                    device text NOT NULL,
                    time bigint NOT NULL,
                    kind text NOT NULL,
                    ticket uuid,
                    body bytea NOT NULL,
                    received_at bigint,
                    PRIMARY KEY (store, sequence)
                )
                """,
                "CREATE INDEX events_ticket ON events(ticket)",
                "CREATE INDEX events_late ON events(store, device, received_at) WHERE received_at IS NOT NULL",
                "CREATE INDEX events_time ON events(store, time)",
                """
                CREATE TABLE ticket_numbers (
                    store uuid NOT NULL REFERENCES stores(id), prefix text NOT NULL, business_day integer NOT NULL,
                    last integer NOT NULL, PRIMARY KEY (store, prefix, business_day)
                )
                """,
                """
                CREATE TABLE ticket_holders (
                    ticket uuid PRIMARY KEY,
                    store uuid NOT NULL REFERENCES stores(id),
                    holder bytea NOT NULL,
                    issued_at bigint NOT NULL
                )
                """,
                "CREATE INDEX ticket_holders_issued ON ticket_holders(issued_at)",
                "CREATE TABLE server_keys (name text PRIMARY KEY, key bytea NOT NULL)",
            ]
        ),
        (
            // A batch that would go past it fails whole and is done again in a transaction that refuses only
            // the issues left without a number (``PostgresCommits``). Not checked on the rows already there.
            "v2: a day's ticket counter stops at the last number a code holds",
            ["ALTER TABLE ticket_numbers ADD CONSTRAINT ticket_numbers_fit_a_code CHECK (last <= 65535) NOT VALID"]
        ),
        (
            "v3: the stores' traffic models, computed by the lease holder for every replica",
            [
                """
                CREATE TABLE traffic_models (
                    store uuid PRIMARY KEY REFERENCES stores(id),
                    model bytea NOT NULL,
                    computed_at bigint NOT NULL
                )
                """
            ]
        ),
        (
            "v4: the system manager's ended console sessions",
            ["CREATE TABLE ended_admin_sessions (token_hash bytea PRIMARY KEY, expires_at bigint NOT NULL)"]
        ),
        (
            "v5: snapshots of the stores' live state, to start from",
            [
                """
                CREATE TABLE snapshots (
                    store uuid PRIMARY KEY REFERENCES stores(id),
                    sequence bigint NOT NULL,
                    data bytea NOT NULL
                )
                """
            ]
        ),
        (
            "v6: kiosk roles; event ids unique within their store",
            [
                // Kiosks enrolled before roles keep doing what they did (both devices).
                "ALTER TABLE devices ADD COLUMN role text NOT NULL DEFAULT 'both'",
                // An id is unique in its store's log only: no store can claim another's (issue 43).
                "ALTER TABLE events DROP CONSTRAINT events_id_key",
                "ALTER TABLE events ADD CONSTRAINT events_store_id_key UNIQUE (store, id)",
            ]
        ),
        ("v7: kiosks pairing by a printed code", PairingColumns.postgres),
        ("v8: a ticket id belongs to one store", IssuedTickets.postgres),
        ("v9: Web Push subscriptions", PushColumns.postgres),
    ]

    /// Any number below 2^63 that no other program sharing the database uses for an advisory lock.
    static let lockKey: Int64 = 0x434C_7570_4D69_6772  // "CLupMigr"

    static func apply(on connection: PostgresConnection, logger: Logger) async throws {
        for step in steps {
            try await connection.withTransaction(logger: logger) { connection in
                // Under the lock, even the bookkeeping table: two replicas creating it at once would collide.
                try await connection.run("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
                try await connection.run(
                    """
                    CREATE TABLE IF NOT EXISTS clup_migrations (
                        name text PRIMARY KEY,
                        applied_at timestamptz NOT NULL DEFAULT now()
                    )
                    """,
                    logger: logger
                )
                let done = try await connection.query(
                    "SELECT 1 FROM clup_migrations WHERE name = \(step.name)",
                    logger: logger
                ).collect()
                guard done.isEmpty else { return }
                for statement in step.sql {
                    try await connection.run(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.run("INSERT INTO clup_migrations (name) VALUES (\(step.name))", logger: logger)
                logger.info("database migrated", metadata: ["migration": "\(step.name)"])
            }
        }
    }
}
