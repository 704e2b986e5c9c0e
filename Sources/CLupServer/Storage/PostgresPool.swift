import Logging
import Metrics
import PostgresNIO
import Synchronization

/// This replica's pooled connections to PostgreSQL (postgres-nio's `PostgresClient`), and what `/metrics` says
/// of them: connections in use, requests waiting for one, how long they waited, and the pool's size — a pool
/// always full says the replica waits for the database, not the other way round.
///
/// Every query and transaction of ``PostgresStorage`` goes through here; a query's rows are read whole before
/// its connection goes back (the results here are small: a page of the log, a store's devices).
struct PostgresPool: Sendable {
    let client: PostgresClient
    /// A client lent for a while (``lending(_:_:)``), asked instead of `client`.
    private let lent = LentClient()
    let logger: Logger

    /// Connections open at most.
    static let size = 20

    static let inUse = Meter(label: "clup_db_connections_in_use")
    static let waiting = Meter(label: "clup_db_requests_waiting")
    static let wait = Timer(label: "clup_db_connection_wait_seconds")
    static let capacity = Gauge(label: "clup_db_connections_max")

    init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
        Self.capacity.record(Self.size)
    }

    /// Runs `body` on a connection of the pool, waiting for one when all are in use.
    func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let asked = ContinuousClock.now
        Self.waiting.increment()
        var leased = false
        defer { if !leased { Self.waiting.decrement() } }
        return try await (lent.client ?? client).withConnection { connection in
            leased = true
            Self.waiting.decrement()
            Self.wait.record(duration: ContinuousClock.now - asked)
            Self.inUse.increment()
            defer { Self.inUse.decrement() }
            return try await body(connection)
        }
    }

    /// Runs `body` with `other` serving every request in the meantime: a start's own client, before the service
    /// group runs this pool's (one lending at a time).
    func lending<T>(_ other: PostgresClient, _ body: () async throws -> T) async throws -> T {
        lent.set(other)
        defer { lent.set(nil) }
        return try await body()
    }

    /// One statement; its rows.
    @discardableResult
    func query(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await withConnection { connection in try await connection.query(query, logger: logger).collect() }
    }

    /// A prepared statement (prepared on a connection the first time it runs there); its rows.
    func execute<Statement: PostgresPreparedStatement>(
        _ statement: Statement
    ) async throws -> [Statement.Row] where Statement.Row: Sendable {
        try await withConnection { connection in
            var rows: [Statement.Row] = []
            for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
            return rows
        }
    }

    /// Runs `body` in a transaction (committed when it returns, rolled back when it throws) and throws what
    /// went wrong itself: the body's own error (an Refusal, a refused check) or PostgreSQL's.
    func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await withConnection { connection in
            do {
                return try await connection.withTransaction(logger: logger) { connection in try await body(connection) }
            } catch let error as PostgresTransactionError {
                throw error.closureError ?? error.beginError ?? error.commitError ?? error
            }
        }
    }
}

/// The client ``PostgresPool/lending(_:_:)`` lent, if any.
private final class LentClient: Sendable {
    private let current = Mutex<PostgresClient?>(nil)

    var client: PostgresClient? { current.withLock { $0 } }

    func set(_ client: PostgresClient?) { current.withLock { $0 = client } }
}

extension Array where Element == PostgresRow {
    /// Every row's columns, typed.
    func decode<each Column: PostgresDecodable>(_ columns: (repeat each Column).Type) throws -> [(repeat each Column)] {
        try map { row in try row.decode(columns) }
    }
}

extension PostgresConnection {
    /// Runs one statement and reads its answer to the end. PostgreSQL may report a statement's failure after its
    /// first rows (a trigger, a constraint checked as the rows are written): an answer left unread hides the
    /// error, and the transaction's COMMIT then rolls back without one — a write that failed looks committed.
    @discardableResult
    func run(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await self.query(query, logger: logger).collect()
    }
}
