import Foundation
import KioskCore
import NIOCore
import PostgresNIO

extension PostgresStorage {
    /// The channel every change other replicas must hear of notifies, delivered when it commits:
    /// `e:<store>:<last sequence>` for an append, `s:<store>` for a store registered or changed.
    static let eventsChannel = "clup_events"

    public func append(
        _ events: [StoreEvent],
        store: StoreID,
        onCommit: @escaping @Sendable ([StoreEvent]) -> Void
    ) async throws -> [AppendResult] {
        let (results, added) = try await transaction { connection in
            try await self.append(events, store: store, on: connection)
        }
        if !added.isEmpty { onCommit(added) }
        return results
    }

    /// The append inside a transaction (shared with issuing a ticket). The store's row lock orders every
    /// append to the store, whichever replica makes it: sequences stay gap-free and strictly increasing.
    func append(
        _ events: [StoreEvent],
        store: StoreID,
        on connection: PostgresConnection
    ) async throws -> (results: [AppendResult], added: [StoreEvent]) {
        var next: Int64?
        for try await value in try await connection.query(
            "SELECT next_sequence FROM stores WHERE id = \(store) FOR UPDATE",
            logger: logger
        ).decode(Int64.self) {
            next = value
        }
        guard var next else { throw StorageFailure(description: "unknown store \(store)") }

        var known: [UUID: (store: UUID, sequence: Int64)] = [:]
        for try await (id, owner, sequence) in try await connection.query(
            "SELECT id, store, sequence FROM events WHERE id = ANY(\(events.map(\.id)))",
            logger: logger
        ).decode((UUID, UUID, Int64).self) {
            known[id] = (owner, sequence)
        }

        var results: [AppendResult] = []
        var added: [StoreEvent] = []
        for var event in events {
            if let first = known[event.id] {
                guard first.store == store else {
                    throw APIError.badRequest("event \(event.id) already belongs to another store", field: "events")
                }
                results.append(AppendResult(id: event.id, sequence: first.sequence, new: false))
                continue
            }
            event.sequence = next
            known[event.id] = (store, next)
            added.append(event)
            results.append(AppendResult(id: event.id, sequence: next, new: true))
            next += 1
        }
        guard let last = added.last?.sequence else { return (results, []) }

        // One statement for the whole batch. Arrays cannot hold NULL here: '' stands for no ticket and
        // Int64.min for no arrival stamp.
        let bodies = try added.map { ByteBuffer(data: try Self.encoder.encode($0.body)) }
        try await connection.query(
            """
            INSERT INTO events (store, sequence, id, device, time, kind, ticket, body, received_at)
            SELECT \(store), s, i, d, t, k, NULLIF(tk, '')::uuid, b, NULLIF(r, \(Int64.min))
            FROM unnest(\(added.map { $0.sequence ?? 0 }), \(added.map(\.id)), \(added.map(\.device)),
                        \(added.map(\.time.milliseconds)), \(added.map(\.kind)),
                        \(added.map { $0.ticketID?.uuidString ?? "" }), \(bodies),
                        \(added.map { $0.receivedAt?.milliseconds ?? Int64.min }))
                AS batch(s, i, d, t, k, tk, b, r)
            """,
            logger: logger
        )
        try await connection.query(
            "UPDATE stores SET next_sequence = \(next) WHERE id = \(store)",
            logger: logger
        )
        try await connection.query(
            "SELECT pg_notify(\(Self.eventsChannel), \("e:\(store.uuidString):\(last)"))",
            logger: logger
        )
        return (results, added)
    }

    public func events(store: StoreID, after sequence: Int64, limit: Int) async throws -> [StoreEvent] {
        try await events(
            store: store,
            """
            SELECT sequence, id, device, time, body, received_at FROM events
            WHERE store = \(store) AND sequence > \(sequence) ORDER BY sequence LIMIT \(Int64(limit))
            """
        )
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
        var found: [StoreEvent] = []
        for try await (sequence, id, device, time, body, received) in try await client.query(query, logger: logger)
            .decode((Int64, UUID, String, Int64, Data, Int64?).self)
        {
            found.append(
                StoreEvent(
                    id: id,
                    store: store,
                    device: device,
                    time: Timestamp(milliseconds: time),
                    body: try Self.decoder.decode(StoreEvent.Body.self, from: body),
                    sequence: sequence,
                    receivedAt: received.map(Timestamp.init(milliseconds:))
                )
            )
        }
        return found
    }

    public func lastReceivedAt(store: StoreID, device: DeviceID) async throws -> Timestamp? {
        let rows = try await client.query(
            """
            SELECT max(received_at) FROM events
            WHERE store = \(store) AND device = \(device) AND received_at IS NOT NULL
            """,
            logger: logger
        )
        for try await latest in rows.decode(Int64?.self) { return latest.map(Timestamp.init(milliseconds:)) }
        return nil
    }

    public func admissionTimes(store: StoreID, since from: Timestamp) async throws -> [Timestamp] {
        var times: [Timestamp] = []
        let rows = try await client.query(
            """
            SELECT time FROM events
            WHERE store = \(store) AND kind = 'ticketAdmitted' AND time >= \(from.milliseconds)
            """,
            logger: logger
        )
        for try await time in rows.decode(Int64.self) { times.append(Timestamp(milliseconds: time)) }
        return times
    }
}
