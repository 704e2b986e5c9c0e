import Foundation
import KioskCore
import Logging
import NIOSSL
import PostgresNIO
import ServiceSupport

/// ``ServerStorage`` in PostgreSQL, for a chain: any number of clup-server replicas share one database.
///
/// A store's appends serialise on its row (`SELECT … FOR UPDATE`), so its log stays gap-free whichever replica
/// appends; the event id's unique index keeps appends idempotent; the appends and issues that wait for a store
/// go together in one transaction (``PostgresCommits``). Schema changes are versioned migrations,
/// applied under an advisory lock so replicas starting together apply each once.
public final class PostgresStorage: ServerStorage {
    let client: PostgresClient
    /// Every query and transaction takes its connection here.
    let pool: PostgresPool
    let logger: Logger
    /// Every append and issue goes through it: the batches of each store.
    let commits: PostgresCommits
    public let clock: WallClock
    /// How stores' signing keys are sealed in the database.
    let vault: KeyVault
    public let address: DatabaseLocation.PostgresAddress
    /// How the client connects: also the start's own client's (``starting(_:)``).
    let configuration: PostgresClient.Configuration

    /// Connects (the pool opens connections as requests need them) and brings the schema up to date.
    public init(
        _ address: DatabaseLocation.PostgresAddress,
        clock: WallClock = .system,
        vault: KeyVault = .none,
        logger: Logger
    ) async throws {
        var configuration = PostgresClient.Configuration(
            host: address.host,
            port: address.port,
            username: address.user,
            password: address.password,
            database: address.database,
            tls: {
                switch address.tls {
                case .disable: .disable
                case .prefer: .prefer(.makeClientConfiguration())
                case .require: .require(.makeClientConfiguration())
                }
            }()
        )
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.maximumConnections = PostgresPool.size
        configuration.options.additionalStartupParameters = Self.sessionSettings
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.configuration = configuration
        self.logger = logger
        pool = PostgresPool(client: client, logger: logger)
        commits = PostgresCommits(pool: pool, logger: logger)
        self.clock = clock
        self.vault = vault
        self.address = address
        do {
            // On a connection of its own: a database that cannot be reached fails the start here, with the
            // reason, instead of leaving the pool to retry for ever.
            try await Self.withConnection(to: address, logger: logger) { connection in
                try await PostgresMigrations.apply(on: connection, logger: logger)
                try await Self.sealSigningKeys(on: connection, vault: vault, logger: logger)
            }
        } catch {
            throw StorageFailure(
                description: "cannot open the PostgreSQL database \(DatabaseLocation.postgres(address)): "
                    + "\(Self.reason(error)) — check that the server runs, that the database exists and that the "
                    + "user may log in (the password in PGPASSWORD)"
            )
        }
    }

    /// Seals the signing keys stored raw or under a previous storage key (``KeyVault``); replicas starting
    /// together write the same keys sealed alike (any of them reads either).
    private static func sealSigningKeys(on connection: PostgresConnection, vault: KeyVault, logger: Logger) async throws
    {
        guard vault.isConfigured else { return }
        let rows = try await connection.query("SELECT id, signing_key FROM stores", logger: logger).collect()
        for (id, stored) in try rows.decode((UUID, Data).self) where vault.needsSealing(stored) {
            let sealed = try vault.seal(try vault.open(stored))
            try await connection.run("UPDATE stores SET signing_key = \(sealed) WHERE id = \(id)", logger: logger)
        }
    }

    /// Runs `body` on a connection of its own, outside the pool (a LISTEN, a session's advisory lock), and
    /// closes it after, whatever happened.
    func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await Self.withConnection(to: address, logger: logger, body)
    }

    static func withConnection<T: Sendable>(
        to address: DatabaseLocation.PostgresAddress,
        logger: Logger,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        let connection = try await PostgresConnection.connect(
            configuration: try connectionConfiguration(address),
            id: 0,
            logger: logger
        )
        let result: T
        do {
            result = try await body(connection)
        } catch {
            // A connection the server ended (a restart, a failover) may never report its close, and awaiting it
            // would hold this caller — and a graceful shutdown behind it — for ever: the close runs on its own.
            Task { try? await connection.close() }
            throw error
        }
        try? await connection.close()
        return result
    }

    static func connectionConfiguration(
        _ address: DatabaseLocation.PostgresAddress
    ) throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS =
            switch address.tls {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        return PostgresConnection.Configuration(
            host: address.host,
            port: address.port,
            username: address.user,
            password: address.password,
            database: address.database,
            tls: tls
        )
    }

    /// The pool at work: connections open as requests need them, until the task running it is cancelled —
    /// then every connection closes. Run once (the service group's ``PostgresClientService``); requests made
    /// before it runs wait for it.
    public func run() async { await client.run() }

    /// Runs `body` — a start's reads, before anything runs the pool — on a client of the start's own (two
    /// connections), closed when `body` ends: a task group's child runs it, so no task outlives the start.
    public func starting<T>(_ body: () async throws -> T) async throws -> T {
        var configuration = configuration
        configuration.options.maximumConnections = 2
        let start = PostgresClient(configuration: configuration, backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await start.run() }
            defer { group.cancelAll() }
            return try await pool.lending(start, body)
        }
    }

    /// Runs `body` in a transaction of a pooled connection (``PostgresPool/transaction(_:)``).
    func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await pool.transaction(body)
    }

    /// What PostgreSQL said, for a message (postgres-nio's own description hides it).
    static func reason(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] { return message }
        return "\(error.code)" + (error.underlying.map { ": \($0)" } ?? "")
    }

    /// Whether `error` is PostgreSQL refusing a duplicate key.
    static func isUniqueViolation(_ error: any Error) -> Bool {
        (error as? PSQLError)?.serverInfo?[.sqlState] == "23505"
    }

    /// How the pool's connections plan. Prepared statements (the batch's write, the log's read) are planned
    /// once a connection, not again for each run's values. A plan made while a table is nearly empty — every
    /// connection to a new database plans its statements then — must not scan the table when it has grown:
    /// the batch's look-up of its event ids (`id = ANY(…)`) was planned as a scan of the whole log there,
    /// which made every write of a new chain's first day cost more than the one before (until autovacuum's
    /// statistics replaced the plan). Every statement here reads by a key or an indexed range, so scans are
    /// kept for where there is nothing else (a table without a usable index is still scanned).
    static let sessionSettings = [("plan_cache_mode", "force_generic_plan"), ("enable_seqscan", "off")]

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
    static let decoder = JSONDecoder()
}
