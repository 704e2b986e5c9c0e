import Foundation
import KioskCore
import NIOCore
import PostgresNIO

extension PostgresStorage {
    /// The channel every change other replicas must hear of notifies, delivered when it commits:
    /// `e:<store>:<last sequence>:<sent, µs since 1970 by the database's clock>` for an append (``LogFollower``
    /// measures its wake-up lag from it), followed by `:<the events, JSON>` when they fit
    /// (``notifiedEvents(_:store:)``); `s:<store>` for a store registered or changed, `t:` for new traffic
    /// models.
    static let eventsChannel = "clup_events"

    /// The longest notification that carries its events, in bytes: PostgreSQL refuses a payload of 8,000 bytes
    /// or more (its default block size). A longer batch (~25 app tickets or more) notifies only where its log
    /// ends, and the other replicas read it.
    static let notificationLimit = 7_999

    /// An event as the batch's statement writes it into a notification (`json_build_object` in
    /// ``OneStatementWrite``).
    private struct NotifiedEvent: Decodable {
        var s: Int64
        var i: UUID
        var d: String
        var t: Int64
        var r: Int64?
        var b: StoreEvent.StoredBody
    }

    /// The events a notification's JSON carries, in log order.
    static func notifiedEvents(_ json: Substring, store: StoreID) throws -> [StoreEvent] {
        try decoder.decode([NotifiedEvent].self, from: Data(json.utf8)).map { row in
            StoreEvent(
                logged: row.i,
                store: store,
                device: row.d,
                time: row.t,
                body: row.b,
                sequence: row.s,
                receivedAt: row.r
            )
        }
    }

    public func append(
        _ events: [StoreEvent],
        store: StoreID,
        onCommit: @escaping CommitHook
    ) async throws -> [AppendResult] {
        guard case .appended(let results) = try await commits.submit(.append(events), store: store, onCommit: onCommit)
        else { throw StorageFailure(description: "an append came back as an issue") }
        return results
    }

    /// The statement every replica runs for every other replica's commit (its catch-up) and every kiosk's
    /// pull: prepared once on each connection.
    struct EventsAfter: PostgresPreparedStatement {
        typealias Row = (Int64, UUID, String, Int64, Data, Int64?)
        static let sql = """
            SELECT sequence, id, device, time, body, received_at FROM events
            WHERE store = $1 AND sequence > $2 ORDER BY sequence LIMIT $3
            """
        var store: StoreID
        var after: Int64
        var limit: Int64

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(store)
            bindings.append(after)
            bindings.append(limit)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    public func events(store: StoreID, after sequence: Int64, limit: Int) async throws -> [StoreEvent] {
        try await pool.execute(EventsAfter(store: store, after: sequence, limit: Int64(limit))).map {
            try event($0, store: store)
        }
    }

    public func events(store: StoreID, from start: Int64, to end: Int64) async throws -> [StoreEvent] {
        try await events(
            store: store,
            """
            SELECT sequence, id, device, time, body, received_at FROM events
            WHERE store = \(store) AND time >= \(start) AND time < \(end) ORDER BY sequence
            """
        )
    }

    private func events(store: StoreID, _ query: PostgresQuery) async throws -> [StoreEvent] {
        try await pool.query(query).decode(EventsAfter.Row.self).map { try event($0, store: store) }
    }

    private func event(_ row: EventsAfter.Row, store: StoreID) throws -> StoreEvent {
        let (sequence, id, device, time, body, received) = row
        return StoreEvent(
            logged: id,
            store: store,
            device: device,
            time: time,
            body: try Self.decoder.decode(StoreEvent.StoredBody.self, from: body),
            sequence: sequence,
            receivedAt: received
        )
    }

    public func knownEvents(_ ids: [EventID], store: StoreID) async throws -> Set<EventID> {
        guard !ids.isEmpty else { return [] }
        let rows = try await pool.query("SELECT id FROM events WHERE store = \(store) AND id = ANY(\(ids))")
        var known: Set<EventID> = []
        for id in try rows.decode(UUID.self) { known.insert(id) }
        return known
    }

    public func lastReceivedAt(store: StoreID, device: DeviceID) async throws -> Timestamp? {
        let rows = try await pool.query(
            """
            SELECT max(received_at) FROM events
            WHERE store = \(store) AND device = \(device) AND received_at IS NOT NULL
            """
        )
        for latest in try rows.decode(Int64?.self) { return latest.map(Timestamp.init(milliseconds:)) }
        return nil
    }

    public func saveSnapshot(store: StoreID, sequence: Int64, data: Data) async throws {
        _ = try await pool.query(
            """
            INSERT INTO snapshots (store, sequence, data) VALUES (\(store), \(sequence), \(ByteBuffer(data: data)))
            ON CONFLICT (store) DO UPDATE SET sequence = excluded.sequence, data = excluded.data
                WHERE snapshots.sequence < excluded.sequence
            """
        )
    }

    public func removeEvents(store: StoreID, before time: Timestamp, through sequence: Int64) async throws -> Int {
        var removed = 0
        while true {
            let rows = try await pool.query(
                """
                WITH gone AS (
                    DELETE FROM events WHERE store = \(store) AND sequence IN (
                        SELECT sequence FROM events
                        WHERE store = \(store) AND time < \(time.milliseconds) AND sequence <= \(sequence)
                        LIMIT \(Self.removalBatch))
                    RETURNING 1
                )
                SELECT count(*) FROM gone
                """
            )
            var batch = 0
            for count in try rows.decode(Int64.self) { batch = Int(count) }
            removed += batch
            if batch < Self.removalBatch { break }
        }
        try await pool.query(
            "DELETE FROM issued_tickets WHERE store = \(store) AND issued_at < \(time.milliseconds)"
        )
        return removed
    }

    /// Events removed in one statement (``removeEvents(store:before:through:)``).
    static let removalBatch = 10_000

    public func snapshot(store: StoreID) async throws -> (sequence: Int64, data: Data)? {
        for (sequence, data) in try await pool.query("SELECT sequence, data FROM snapshots WHERE store = \(store)")
            .decode((Int64, Data).self)
        {
            return (sequence, data)
        }
        return nil
    }

    /// In the `traffic_models` table (its name from the wait model before this one).
    public func saveWaitModels(_ models: [StoreID: WaitModel]) async throws {
        guard !models.isEmpty else { return }
        let stores = Array(models.keys)
        let encoded = try stores.map { ByteBuffer(data: try Self.encoder.encode(models[$0])) }
        try await pool.query(
            """
            WITH kept AS (
                INSERT INTO traffic_models (store, model, computed_at)
                SELECT s, m, c FROM unnest(\(stores), \(encoded), \(stores.map { models[$0]!.computedAt.milliseconds }))
                    AS kept(s, m, c)
                ON CONFLICT (store) DO UPDATE SET model = excluded.model, computed_at = excluded.computed_at
            )
            SELECT pg_notify(\(Self.eventsChannel), 't:')
            """
        )
    }

    public func waitModels() async throws -> [StoreID: WaitModel] {
        var models: [StoreID: WaitModel] = [:]
        for (store, model) in try await pool.query("SELECT store, model FROM traffic_models").decode((UUID, Data).self)
        {
            // A model of the estimator before this one does not read: it is learnt again at the next refresh.
            models[store] = try? Self.decoder.decode(WaitModel.self, from: model)
        }
        return models
    }
}
