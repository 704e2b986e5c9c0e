import Foundation
import KioskCore
import NIOCore
import PostgresNIO

extension PostgresCommits {
    /// One event of a batch in one statement: an event to append, or the `ticketIssued` of a ticket to issue
    /// (its number is given by the statement).
    private struct Slot {
        var event: StoreEvent
        /// Which piece of the batch it belongs to.
        var piece: Int
        var issue: IssueOrder?
        var ticket: Ticket?
    }

    /// What the statement answers, a row each: a new event's place (`what` 1: its ordinal, sequence and, for an
    /// issue, number), an event id the log held already (2: its store and sequence), or the notification (0).
    private typealias Row = (what: Int32, ordinal: Int32, sequence: Int64, number: Int32?, id: UUID, owner: UUID)

    /// A batch without a check as one statement outside a transaction: one round trip, and the store's row
    /// locked only while PostgreSQL runs it — not across round trips, where replicas writing to one store would
    /// wait for each other's network. The statement takes the store's next sequences (the row's newest
    /// version, whoever wrote last), numbers the issues from the day's counters, puts the numbers into the
    /// `ticketIssued` bodies (the wire form's `ticket.code.number`), inserts the events and the holders and
    /// notifies the other replicas — with the events themselves when they fit in a notification, so that a
    /// replica follows another's writes without reading them back (a read for every other replica's commit
    /// made the database's work a write grow with the number of replicas).
    ///
    /// Nil, with nothing written, when the batch needs ``commit(_:store:on:)``'s transaction, which can refuse
    /// a piece alone: a ticket id issued before (by another store, or appended again with a new event id: the
    /// claims' key refuses the statement, ``IssuedTickets``), a day's counter past its last number (the
    /// table's check refuses the statement), an event id appended through another replica since the statement
    /// began (its unique index refuses it).
    func commitInOneStatement(_ batch: [Waiting], store: StoreID) async throws -> [Done]? {
        var slots: [Slot] = []
        var slotOf: [EventID: Int] = [:]
        for (piece, waiting) in batch.enumerated() {
            switch waiting.work {
            case .append(let events):
                for event in events where slotOf[event.id] == nil {
                    slotOf[event.id] = slots.count
                    slots.append(Slot(event: event, piece: piece))
                }
            case .profile:
                return nil  // a transaction's, alone in its batch (never sent here)
            case .issue(let issue):
                // Numbered by the statement; 0 until then.
                let (ticket, event) = try issue.rule.made(number: 0)
                slotOf[event.id] = slots.count
                slots.append(Slot(event: event, piece: piece, issue: issue, ticket: ticket))
            }
        }
        let write = OneStatementWrite(
            store: store,
            events: slots.map(\.event),
            bodies: try slots.map { ByteBuffer(data: try PostgresStorage.encoder.encode($0.event.storedBody)) },
            prefixes: slots.map { $0.issue?.prefix ?? "" },
            days: slots.map { Int32($0.issue?.day ?? 0) },
            holders: slots.map { ByteBuffer(data: $0.issue?.holder?.hash ?? Data()) }
        )
        let rows: [Row]
        do {
            rows = try await pool.execute(write).map {
                Row(what: $0.0, ordinal: $0.1, sequence: $0.2, number: $0.3, id: $0.4, owner: $0.5)
            }
        } catch let error as PSQLError where ["23505", "23514"].contains(error.serverInfo?[.sqlState]) {
            return nil
        }
        var placed: [Int: (sequence: Int64, number: Int?)] = [:]
        var known: [EventID: Int64] = [:]
        for row in rows {
            switch row.what {
            case 1: placed[Int(row.ordinal)] = (row.sequence, row.number.map(Int.init))
            case 2: known[row.id] = row.sequence
            default: break
            }
        }
        return try outcomes(batch, slots: slots, slotOf: slotOf, placed: placed, known: known)
    }

    /// Each piece's outcome from where its events went: new ones in their places (the first time the batch
    /// names an event), the others at the sequence the log gave them first.
    private func outcomes(
        _ batch: [Waiting],
        slots: [Slot],
        slotOf: [EventID: Int],
        placed: [Int: (sequence: Int64, number: Int?)],
        known: [EventID: Int64]
    ) throws -> [Done] {
        var reported: Set<EventID> = []
        return try batch.enumerated().map { piece, waiting in
            switch waiting.work {
            case .append(let events), .profile(_, let events):  // no profile comes here (above)
                var results: [AppendResult] = []
                var added: [StoreEvent] = []
                for var event in events {
                    if let sequence = known[event.id] {
                        results.append(AppendResult(id: event.id, sequence: sequence, new: false))
                        continue
                    }
                    guard let slot = slotOf[event.id], let place = placed[slot] else {
                        throw StorageFailure(description: "event \(event.id) has no place in the statement's answer")
                    }
                    let new = reported.insert(event.id).inserted
                    results.append(AppendResult(id: event.id, sequence: place.sequence, new: new))
                    if new {
                        event.sequence = place.sequence
                        added.append(event)
                    }
                }
                return Done(outcome: .success(.appended(results)), added: added)
            case .issue:
                guard let slot = slots.indices.first(where: { slots[$0].piece == piece }),
                    var ticket = slots[slot].ticket, let place = placed[slot], let number = place.number
                else { throw StorageFailure(description: "an issued ticket has no place in the statement's answer") }
                ticket.code.number = number
                var event = slots[slot].event
                event.body = .ticketIssued(ticket, told: slots[slot].issue?.rule.told)
                event.sequence = place.sequence
                return Done(outcome: .success(.issued(ticket, sequence: place.sequence)), added: [event])
            }
        }
    }
}

/// The one statement of ``PostgresCommits/commitInOneStatement(_:store:)``, prepared once on each connection
/// (parsed and planned once: a statement this size costs PostgreSQL more to plan than to run for a few rows).
/// Arrays cannot hold NULL here: '' stands for no ticket or no prefix, Int64.min for no arrival stamp, an empty
/// holder for none.
struct OneStatementWrite: PostgresPreparedStatement {
    typealias Row = (Int32, Int32, Int64, Int32?, UUID, UUID)

    var store: StoreID
    var events: [StoreEvent]
    var bodies: [ByteBuffer]
    var prefixes: [String]
    var days: [Int32]
    var holders: [ByteBuffer]

    static let sql = """
        WITH known AS (
            SELECT id, store, sequence FROM events WHERE store = $1 AND id = ANY($3)
        ), batch AS (
            SELECT * FROM unnest($2::integer[], $3::uuid[], $4::text[], $5::bigint[], $6::text[], $7::text[],
                                 $8::bytea[], $9::bigint[], $10::text[], $11::integer[], $12::bytea[])
                AS batch(o, i, d, t, k, tk, b, r, p, dy, h)
            WHERE NOT EXISTS (SELECT 1 FROM known WHERE known.id = batch.i)
        ), moved AS (
            UPDATE stores SET next_sequence = next_sequence + (SELECT count(*) FROM batch) WHERE id = $1
            RETURNING next_sequence - (SELECT count(*) FROM batch) AS first
        ), wanted AS (
            SELECT p, dy, count(*) AS n FROM batch WHERE p <> '' GROUP BY p, dy
        ), reserved AS (
            INSERT INTO ticket_numbers (store, prefix, business_day, last)
            SELECT $1, p, dy, n FROM wanted WHERE EXISTS (SELECT 1 FROM moved)
            ON CONFLICT (store, prefix, business_day) DO UPDATE SET last = ticket_numbers.last + excluded.last
            RETURNING prefix, business_day, last
        ), numbered AS (
            SELECT batch.*, moved.first + row_number() OVER (ORDER BY batch.o) - 1 AS s,
                CASE WHEN batch.p <> '' THEN (reserved.last - wanted.n
                    + row_number() OVER (PARTITION BY batch.p, batch.dy ORDER BY batch.o))::integer END AS num
            FROM batch CROSS JOIN moved
                LEFT JOIN wanted ON wanted.p = batch.p AND wanted.dy = batch.dy
                LEFT JOIN reserved ON reserved.prefix = batch.p AND reserved.business_day = batch.dy
        ), bodies AS (
            SELECT numbered.*, NULLIF(r, -9223372036854775808) AS received,
                CASE WHEN num IS NULL THEN b ELSE convert_to(
                    jsonb_set(convert_from(b, 'UTF8')::jsonb, '{ticket,code,number}', to_jsonb(num))::text, 'UTF8'
                ) END AS body
            FROM numbered
        ), logged AS (
            INSERT INTO events (store, sequence, id, device, time, kind, ticket, body, received_at)
            SELECT $1, s, i, d, t, k, NULLIF(tk, '')::uuid, body, received FROM bodies
        ), held AS (
            INSERT INTO ticket_holders (ticket, store, holder, issued_at)
            SELECT tk::uuid, $1, h, t FROM numbered WHERE length(h) > 0
        ), claimed AS (
            INSERT INTO issued_tickets (ticket, store, issued_at)
            SELECT tk::uuid, $1, t FROM numbered WHERE k = '\(StoreEvent.Kind.ticketIssued.rawValue)'
        ), note AS (
            SELECT 'e:' || upper($1::text) || ':' || max(s) || ':'
                    || (extract(epoch FROM clock_timestamp()) * 1000000)::bigint AS head,
                json_agg(json_build_object(
                    's', s, 'i', i, 'd', d, 't', t, 'r', received, 'b', convert_from(body, 'UTF8')::json
                ) ORDER BY s)::text AS events
            FROM bodies HAVING count(*) > 0
        ), told AS (
            SELECT pg_notify(
                '\(PostgresStorage.eventsChannel)',
                head || CASE WHEN octet_length(head) + 1 + octet_length(events) <= \(PostgresStorage.notificationLimit)
                    THEN ':' || events ELSE '' END
            ) FROM note
        )
        SELECT 1, o, s, num, i, $1 FROM numbered
        UNION ALL SELECT 2, 0, sequence, NULL::integer, id, store FROM known
        UNION ALL SELECT 0, 0, 0::bigint, NULL::integer, $1, $1 FROM told
        """

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 12)
        bindings.append(store)
        bindings.append(events.indices.map { Int32($0) })
        bindings.append(events.map(\.id))
        bindings.append(events.map(\.device))
        bindings.append(events.map(\.time.milliseconds))
        bindings.append(events.map(\.kind))
        bindings.append(events.map { $0.ticketID?.uuidString ?? "" })
        bindings.append(bodies)
        bindings.append(events.map { $0.receivedAt?.milliseconds ?? Int64.min })
        bindings.append(prefixes)
        bindings.append(days)
        bindings.append(holders)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}
