import Foundation
import GRDB
import KioskCore
import ServiceSupport

extension SQLiteStorage {
    /// Appends events to a store's log in one transaction, giving each new one the store's next sequence
    /// number; an event already there (same id) is not appended again. `onCommit` runs on the writer,
    /// after the commit and before the next write, with the events that are new in sequence order — so
    /// in-memory state follows the log in exactly its order.
    public func append(
        _ events: [StoreEvent],
        store: StoreID,
        onCommit: @escaping CommitHook
    ) async throws -> [AppendResult] {
        try await pool.write { db in try self.append(events, store: store, in: db, onCommit: onCommit) }
    }

    /// The append inside a write transaction (shared with issuing a ticket).
    func append(
        _ events: [StoreEvent],
        store: StoreID,
        in db: Database,
        onCommit: @escaping CommitHook
    ) throws -> [AppendResult] {
        guard
            var next = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT next_sequence FROM stores WHERE id = ?"),
                arguments: [store.uuidString]
            )
        else { throw StorageFailure(description: "unknown store \(store)") }
        var results: [AppendResult] = []
        var added: [StoreEvent] = []
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO events (store, sequence, id, device, time, kind, ticket, body, received_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (store, id) DO NOTHING
                """
        )
        for (index, var event) in events.enumerated() {
            try claim(event, index: index, store: store, in: db)
            try insert.execute(arguments: [
                store.uuidString, next, event.id.uuidString, event.device, event.time.milliseconds, event.kind,
                event.ticketID?.uuidString, try Self.encoder.encode(event.storedBody), event.receivedAt?.milliseconds,
            ])
            if db.changesCount == 1 {
                event.sequence = next
                added.append(event)
                results.append(AppendResult(id: event.id, sequence: next, new: true))
                next += 1
            } else {
                let first = try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT sequence FROM events WHERE store = ? AND id = ?"),
                    arguments: [store.uuidString, event.id.uuidString]
                )
                guard let first else { throw StorageFailure(description: "event \(event.id) neither new nor there") }
                results.append(AppendResult(id: event.id, sequence: first, new: false))
            }
        }
        try db.cachedStatement(sql: "UPDATE stores SET next_sequence = ? WHERE id = ?")
            .execute(arguments: [next, store.uuidString])
        if !added.isEmpty {
            db.afterNextTransaction { [added] _ in onCommit(added) }
        }
        return results
    }

    /// Claims the ticket id a `ticketIssued` event issues for `store` (``IssuedTickets``); refuses one that
    /// another store's log issued. Its own store's claim stands (an event appended again).
    private func claim(_ event: StoreEvent, index: Int, store: StoreID, in db: Database) throws {
        guard let ticket = IssuedTickets.ticket(issuedBy: event) else { return }
        try db.cachedStatement(
            sql: """
                INSERT INTO issued_tickets (ticket, store, issued_at) VALUES (?, ?, ?) ON CONFLICT (ticket) DO NOTHING
                """
        ).execute(arguments: [ticket.uuidString, store.uuidString, event.time.milliseconds])
        guard db.changesCount == 0 else { return }
        let owner = try String.fetchOne(
            db.cachedStatement(sql: "SELECT store FROM issued_tickets WHERE ticket = ?"),
            arguments: [ticket.uuidString]
        )
        if owner != store.uuidString { throw StorageRefusal.ticketOfAnotherStore(ticket, index: index) }
    }

    /// The store's log after `sequence`, at most `limit` events, in order.
    public func events(store: StoreID, after sequence: Int64, limit: Int) throws -> [StoreEvent] {
        try pool.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM events WHERE store = ? AND sequence > ? ORDER BY sequence LIMIT ?",
                arguments: [store.uuidString, sequence, limit]
            ).map { row in try Self.event(row, store: store) }
        }
    }

    /// The events that happened from `start` up to `end` (milliseconds since 1970), in log order.
    public func events(store: StoreID, from start: Int64, to end: Int64) throws -> [StoreEvent] {
        try pool.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM events WHERE store = ? AND time >= ? AND time < ? ORDER BY sequence",
                arguments: [store.uuidString, start, end]
            ).map { row in try Self.event(row, store: store) }
        }
    }

    static func event(_ row: Row, store: StoreID) throws -> StoreEvent {
        guard let event = try StoreEvent(row: row, store: store) else {
            throw StorageFailure(description: "corrupt event row \(row["sequence"] as Int64? ?? -1) of store \(store)")
        }
        return event
    }

    public func knownEvents(_ ids: [EventID], store: StoreID) throws -> Set<EventID> {
        guard !ids.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
        return try pool.read { db in
            Set(
                try String.fetchAll(
                    db,
                    sql: "SELECT id FROM events WHERE store = ? AND id IN (\(marks))",
                    arguments: StatementArguments([store.uuidString] + ids.map(\.uuidString))
                ).compactMap(UUID.init(uuidString:))
            )
        }
    }

    /// The latest arrival the server stamped on one of a kiosk's late events (``LateEvents``).
    public func lastReceivedAt(store: StoreID, device: DeviceID) throws -> Timestamp? {
        try pool.read { db in
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT max(received_at) FROM events
                    WHERE store = ? AND device = ? AND received_at IS NOT NULL
                    """,
                arguments: [store.uuidString, device]
            ).map(Timestamp.init(milliseconds:))
        }
    }

    /// One process: nothing to share (the model lives in its memory).
    public func saveSnapshot(store: StoreID, sequence: Int64, data: Data) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO snapshots (store, sequence, data) VALUES (?, ?, ?)
                    ON CONFLICT (store) DO UPDATE SET sequence = excluded.sequence, data = excluded.data
                        WHERE excluded.sequence > snapshots.sequence
                    """,
                arguments: [store.uuidString, sequence, data]
            )
        }
    }

    public func removeEvents(store: StoreID, before time: Timestamp, through sequence: Int64) async throws -> Int {
        var removed = 0
        while true {
            let batch = try await pool.write { db in
                try db.execute(
                    sql: """
                        DELETE FROM events WHERE rowid IN (
                            SELECT rowid FROM events WHERE store = ? AND time < ? AND sequence <= ? LIMIT ?)
                        """,
                    arguments: [store.uuidString, time.milliseconds, sequence, Self.removalBatch]
                )
                return db.changesCount
            }
            removed += batch
            if batch < Self.removalBatch { break }
        }
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM issued_tickets WHERE store = ? AND issued_at < ?",
                arguments: [store.uuidString, time.milliseconds]
            )
        }
        return removed
    }

    /// Events removed in one transaction (``removeEvents(store:before:through:)``).
    static let removalBatch = 10_000

    public func snapshot(store: StoreID) throws -> (sequence: Int64, data: Data)? {
        try pool.read { db in
            try Row.fetchOne(
                db,
                sql: "SELECT sequence, data FROM snapshots WHERE store = ?",
                arguments: [store.uuidString]
            )
            .map { ($0["sequence"], $0["data"]) }
        }
    }

    public func saveWaitModels(_ models: [StoreID: WaitModel]) async throws {}

    public func waitModels() async throws -> [StoreID: WaitModel] { [:] }
}
