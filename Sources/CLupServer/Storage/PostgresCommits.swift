import Foundation
import KioskCore
import Logging
import Metrics
import NIOCore
import PostgresNIO
import Synchronization

/// Group commit for PostgreSQL, per store: the appends and issues that arrive for a store while its previous
/// write runs wait, and go together in its next one — one round trip for all of them instead of a handful each,
/// and one turn at the store's row lock instead of one each.
///
/// A batch is normally one prepared statement outside any transaction (``commitInOneStatement(_:store:)``): the
/// store's row locked only while PostgreSQL runs it. A batch that statement cannot do whole, and a piece with a
/// check (a booking's room in its slot, alone in its batch), go to a transaction (``commit(_:store:on:)``): the
/// store's row locked (`FOR UPDATE`, which orders it after every other replica's append to the store), the
/// event ids already in the log looked up (appends stay idempotent), the day's counters read, then one
/// statement that inserts the events and the holders, sets the counters, moves the store's next sequence and
/// notifies the other replicas. There, work that cannot be done (a number past what a code holds, an event id
/// of another store) fails alone, before anything is written. A failed statement or transaction fails the
/// whole batch, and nothing of it was written.
///
/// Order is kept: batches of a store run one after the other in submission order, and each one's `onCommit`
/// callbacks run, in sequence order, before the next batch starts — so a replica's memory follows its own
/// writes in log order, and a check runs after every earlier write of this replica was applied.
final class PostgresCommits: Sendable {
    /// An app ticket or a booking to issue.

    enum Work: Sendable {
        case append([StoreEvent])
        case issue(IssueOrder)
        /// A store's changed profile and the events it makes (its capacity change), written together: always in
        /// a transaction, alone in its batch.
        case profile(StoreProfile, [StoreEvent])
    }

    enum Outcome: Sendable {
        case appended([AppendResult])
        case issued(Ticket, sequence: Int64)
    }

    /// A piece of a batch: its work, and what runs once its batch committed.
    struct Waiting: Sendable {
        let work: Work
        let onCommit: CommitHook

        /// A check (a booking's room in its slot) that must see every earlier write applied first.
        var check: IssueCheck? { if case .issue(let order) = work { order.check } else { nil } }
        var changesProfile: Bool { if case .profile = work { true } else { false } }
        /// The events it appends as they came (an issue's event is made in its batch).
        var events: [StoreEvent] {
            switch work {
            case .append(let events), .profile(_, let events): events
            case .issue: []
            }
        }
    }

    /// What one piece of work came to inside the transaction, before the commit.
    struct Done {
        var outcome: Result<Outcome, any Error>
        var added: [StoreEvent] = []
    }

    /// The most a batch takes: bounds a transaction's length and its arrays.
    static let batchLimit = 500

    let pool: PostgresPool
    let logger: Logger
    /// Transactions committed and the writes they held, since the start (the tests check that writes share).
    let transactions = Atomic<Int>(0)
    let writes = Atomic<Int>(0)
    /// Batches the one statement handed to the transaction (``commitInOneStatement(_:store:)``).
    let handedOn = Atomic<Int>(0)
    static let writesPerTransaction = Recorder(label: "clup_db_writes_per_transaction")
    private let batches = CommitBatches<StoreID, Waiting, Outcome>(limit: batchLimit) {
        $0.check != nil || $0.changesProfile
    }

    init(pool: PostgresPool, logger: Logger) {
        self.pool = pool
        self.logger = logger
        _ = Self.writesPerTransaction  // exported from the start, empty until the first commit
    }

    /// Runs `work` for `store` in its next batch and returns what came of it once the batch committed and
    /// `onCommit` ran with the events it added.
    func submit(_ work: Work, store: StoreID, onCommit: @escaping CommitHook) async throws -> Outcome {
        try await batches.submit(Waiting(work: work, onCommit: onCommit), key: store) { [self] store, batch in
            await commit(batch, store: store)
        }
    }

    /// Commits one batch of a store; every piece's outcome, after the `onCommit` of those that added events ran
    /// in log order (before the store's next batch begins).
    private func commit(_ batch: [Waiting], store: StoreID) async -> [Result<Outcome, any Error>] {
        let done: [Done]
        do {
            let alone = batch[0].check != nil || batch[0].changesProfile
            if !alone, let quick = try await commitInOneStatement(batch, store: store) {
                done = quick
            } else {
                if !alone { handedOn.add(1, ordering: .relaxed) }
                done = try await pool.transaction { connection in
                    try await self.commit(batch, store: store, on: connection)
                }
            }
        } catch {
            return batch.map { _ in .failure(error) }
        }
        transactions.add(1, ordering: .relaxed)
        writes.add(batch.count, ordering: .relaxed)
        Self.writesPerTransaction.record(batch.count)
        for (waiting, done) in zip(batch, done) where !done.added.isEmpty { waiting.onCommit(done.added) }
        return done.map(\.outcome)
    }

    /// The batch inside its transaction: every piece's outcome, in the batch's order.
    private func commit(_ batch: [Waiting], store: StoreID, on connection: PostgresConnection) async throws -> [Done] {
        // The store's row first: this batch waits for every earlier write to the store, from any replica.
        var next: Int64?
        for try await value in try await connection.query(
            "SELECT next_sequence FROM stores WHERE id = \(store) FOR UPDATE",
            logger: logger
        ).decode(Int64.self) {
            next = value
        }
        guard var next else { throw StorageFailure(description: "unknown store \(store)") }
        if batch.count == 1, let check = batch[0].check {
            do { try check() } catch { return [Done(outcome: .failure(error))] }
        }
        var known = try await knownEvents(batch, store: store, on: connection)
        let claims = try await claims(batch, known: known, on: connection)
        var numbers = try await lastNumbers(batch, store: store, on: connection)
        let before = numbers

        var done: [Done] = []
        var added: [StoreEvent] = []
        var holders: [(ticket: TicketID, holder: Holder, at: Timestamp)] = []
        var profile: StoreProfile?
        for waiting in batch {
            switch waiting.work {
            case .append(let events), .profile(_, let events):
                if let refusal = Self.claimedElsewhere(events, known: known, claims: claims, store: store) {
                    done.append(Done(outcome: .failure(refusal)))
                    continue
                }
                if case .profile(let changed, _) = waiting.work { profile = changed }
                var results: [AppendResult] = []
                var new: [StoreEvent] = []
                for var event in events {
                    if let first = known[event.id] {
                        results.append(AppendResult(id: event.id, sequence: first, new: false))
                        continue
                    }
                    event.sequence = next + Int64(new.count)
                    new.append(event)
                    results.append(AppendResult(id: event.id, sequence: event.sequence!, new: true))
                }
                for event in new { known[event.id] = event.sequence! }
                next += Int64(new.count)
                added += new
                done.append(Done(outcome: .success(.appended(results)), added: new))
            case .issue(let issue):
                let counter = Self.counter(issue)
                let number = numbers[counter, default: 0] + 1
                let ticket: Ticket
                var event: StoreEvent
                do {
                    (ticket, event) = try issue.rule.made(number: number)
                } catch {
                    done.append(Done(outcome: .failure(error)))
                    continue
                }
                numbers[counter] = number
                event.sequence = next
                next += 1
                added.append(event)
                if let holder = issue.holder { holders.append((ticket.id, holder, issue.now)) }
                done.append(Done(outcome: .success(.issued(ticket, sequence: event.sequence!)), added: [event]))
            }
        }
        let counters = numbers.filter { before[$0.key] != $0.value }
        if let profile {
            let encoded = try PostgresStorage.encoder.encode(profile)
            try await connection.run("UPDATE stores SET profile = \(encoded) WHERE id = \(store)", logger: logger)
            try await PostgresStorage.notifyStoreChanged(store, on: connection, logger: logger)
        }
        if !added.isEmpty {
            try await write(
                added,
                holders: holders,
                counters: counters,
                claiming: Self.unclaimed(added, claims: claims),
                next: next,
                store: store,
                on: connection
            )
        }
        return done
    }

    /// Where each event id of the batch's appends already is in the store's log.
    private func knownEvents(
        _ batch: [Waiting],
        store: StoreID,
        on connection: PostgresConnection
    ) async throws -> [UUID: Int64] {
        let ids = batch.flatMap { $0.events.map(\.id) }
        var known: [UUID: Int64] = [:]
        guard !ids.isEmpty else { return known }
        for try await (id, sequence) in try await connection.query(
            "SELECT id, sequence FROM events WHERE store = \(store) AND id = ANY(\(ids))",
            logger: logger
        ).decode((UUID, Int64).self) {
            known[id] = sequence
        }
        return known
    }

    /// A day's counter of one prefix.
    private struct Counter: Hashable {
        var prefix: String
        var day: Int64
    }

    private static func counter(_ issue: IssueOrder) -> Counter { Counter(prefix: issue.prefix, day: issue.day) }

    /// The last number each day's counter of the batch's issues gave (none yet: absent). Read under the
    /// store's row lock, which every change of its counters holds: exact until the commit.
    private func lastNumbers(
        _ batch: [Waiting],
        store: StoreID,
        on connection: PostgresConnection
    ) async throws -> [Counter: Int] {
        let days = Set(
            batch.compactMap { waiting -> Int32? in
                if case .issue(let issue) = waiting.work { Int32(issue.day) } else { nil }
            }
        )
        guard !days.isEmpty else { return [:] }
        var last: [Counter: Int] = [:]
        for try await (prefix, day, number) in try await connection.query(
            """
            SELECT prefix, business_day, last FROM ticket_numbers
            WHERE store = \(store) AND business_day = ANY(\(Array(days)))
            """,
            logger: logger
        ).decode((String, Int32, Int32).self) {
            last[Counter(prefix: prefix, day: Int64(day))] = Int(number)
        }
        return last
    }

    /// One statement: the events, the holders of the tickets issued, the claims of their ids (a race with
    /// another store's claim fails the batch: its key), the day's counters, the store's next sequence, and the
    /// notification the other replicas hear once this commits (`e:<store>:<last sequence>:<the database's
    /// clock, µs>`).
    private func write(
        _ events: [StoreEvent],
        holders: [(ticket: TicketID, holder: Holder, at: Timestamp)],
        counters: [Counter: Int],
        claiming: [(ticket: TicketID, at: Timestamp)],
        next: Int64,
        store: StoreID,
        on connection: PostgresConnection
    ) async throws {
        // Arrays cannot hold NULL here: '' stands for no ticket and Int64.min for no arrival stamp.
        let bodies = try events.map { ByteBuffer(data: try PostgresStorage.encoder.encode($0.storedBody)) }
        let last = events.last?.sequence ?? next - 1
        try await connection.run(
            """
            WITH logged AS (
                INSERT INTO events (store, sequence, id, device, time, kind, ticket, body, received_at)
                SELECT \(store), s, i, d, t, k, NULLIF(tk, '')::uuid, b, NULLIF(r, \(Int64.min))
                FROM unnest(\(events.map { $0.sequence ?? 0 }), \(events.map(\.id)), \(events.map(\.device)),
                            \(events.map(\.time.milliseconds)), \(events.map(\.kind)),
                            \(events.map { $0.ticketID?.uuidString ?? "" }), \(bodies),
                            \(events.map { $0.receivedAt?.milliseconds ?? Int64.min }))
                    AS batch(s, i, d, t, k, tk, b, r)
            ), held AS (
                INSERT INTO ticket_holders (ticket, store, holder, issued_at)
                SELECT t, \(store), h, a
                FROM unnest(\(holders.map(\.ticket)), \(holders.map { ByteBuffer(data: $0.holder.hash) }),
                            \(holders.map(\.at.milliseconds))) AS held(t, h, a)
            ), claimed AS (
                INSERT INTO issued_tickets (ticket, store, issued_at)
                SELECT t, \(store), a FROM unnest(\(claiming.map(\.ticket)), \(claiming.map(\.at.milliseconds)))
                    AS claimed(t, a)
            ), counted AS (
                INSERT INTO ticket_numbers (store, prefix, business_day, last)
                SELECT \(store), p, d, n FROM unnest(\(counters.keys.map(\.prefix)),
                    \(counters.keys.map { Int32($0.day) }), \(counters.values.map { Int32($0) })) AS counted(p, d, n)
                ON CONFLICT (store, prefix, business_day) DO UPDATE SET last = excluded.last
            ), moved AS (
                UPDATE stores SET next_sequence = \(next) WHERE id = \(store)
            )
            SELECT pg_notify(
                \(PostgresStorage.eventsChannel),
                \("e:\(store.uuidString):\(last):") || (extract(epoch FROM clock_timestamp()) * 1000000)::bigint
            )
            """,
            logger: logger
        )
    }
}
