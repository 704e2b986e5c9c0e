import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Which replica runs the fleet's background duties that write to the stores' logs (no-show expiry, the
/// business day's start): the one holding a PostgreSQL advisory lock on a connection of its own. The lock
/// belongs to the connection, so a replica that stops, crashes or is killed loses it when its connection
/// ends, and another replica takes it at its next try (every second). With SQLite (one process) this process
/// always holds it.
///
/// Between a holder losing its connection and noticing, two replicas may both write an expiry or a day's
/// start: the log keeps the first of each (the reducer ignores the repeat), so the overlap costs an event,
/// never a wrong queue.
public final class DutyLease: Service, Sendable {
    private let storage: PostgresStorage?
    private let logger: Logger
    private let held = Atomic(false)

    /// Any number below 2^63 that no other program sharing the database uses for an advisory lock.
    static let lockKey: Int64 = 0x434C_7570_4475_7479  // "CLupDuty"

    init(storage: PostgresStorage?, logger: Logger) {
        self.storage = storage
        self.logger = logger
    }

    /// Whether this replica runs the duties now.
    public var isHeld: Bool { storage == nil || held.load(ordering: .relaxed) }

    public func run() async throws {
        guard let storage else { return }
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown {
                    defer { self.held.store(false, ordering: .relaxed) }
                    try await storage.withConnection { connection in try await self.hold(on: connection) }
                }
            } catch {
                // Stopping: the cancellation is how the work ended, not a failure.
                if Task.isShuttingDownGracefully || Task.isCancelled { break }
                logger.warning(
                    "cannot take part in the background duties' lease — retrying",
                    metadata: ["error": "\(PostgresStorage.reason(error))"]
                )
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
        }
    }

    /// Tries for the lock every second; once held, checks every second that the connection (and so the lock)
    /// is still there. Returns only by throwing (a lost connection) or when cancelled.
    private func hold(on connection: PostgresConnection) async throws {
        while !Task.isCancelled {
            // A query sent on a connection the server has ended never returns (postgres-nio drops it, seen after a
            // PostgreSQL restart): look first, and start again on a new connection.
            guard !connection.isClosed else { throw ConnectionEnded() }
            if held.load(ordering: .relaxed) {
                try await connection.run("SELECT 1", logger: logger)
            } else {
                var taken = false
                for try await value in try await connection.query(
                    "SELECT pg_try_advisory_lock(\(Self.lockKey))",
                    logger: logger
                ).decode(Bool.self) {
                    taken = value
                }
                if taken {
                    held.store(true, ordering: .relaxed)
                    logger.info("this replica runs the background duties (no-show expiry, day start)")
                }
            }
            try await Task.sleep(for: .seconds(1))
        }
    }
}

/// The lease's connection was ended (by the database, or a network failure): the lease is lost with it.
struct ConnectionEnded: Error, CustomStringConvertible {
    var description: String { "the database ended the connection" }
}
