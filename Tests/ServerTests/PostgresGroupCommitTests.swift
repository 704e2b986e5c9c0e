import Foundation
import KioskCore
import PostgresNIO
import Testing

@testable import CLupServer
@testable import Rigs

/// PostgreSQL's group commit (``PostgresCommits``): app tickets and kiosk pushes that arrive for a store at once
/// share transactions, and each still gets what it would have got alone — its own sequence in a gap-free log,
/// its own ticket number, the first sequence again for an event sent twice, a refusal of its own.
@Suite(.serialized, .enabled(if: PostgresRig.available, "needs Debian's postgresql (make test installs it)"))
struct PostgresGroupCommitTests {
    /// A server on a private PostgreSQL cluster with a store and an enrolled kiosk, stopped after `body`.
    func withStore(_ body: (ServerRig, StoreID, String, PostgresStorage) async throws -> Void) async throws {
        let rig = try await ServerRig(backend: .postgresql)
        do {
            let store = try await rig.registerStore(["capacity": 1000])
            let credential = try await rig.enroll("k1", store: store)
            let storage = try #require(rig.app.database as? PostgresStorage)
            // The store's business day started (its event), so that nothing else writes meanwhile.
            let deadline = ContinuousClock.now + .seconds(5)
            while rig.queue(store)?.day == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            try #require(rig.queue(store)?.day != nil, "the store's day never started")
            try await body(rig, store, credential, storage)
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    func push(
        _ rig: ServerRig,
        _ store: StoreID,
        _ credential: String,
        _ event: StoreEvent
    ) async throws -> (status: Int, sequence: Int?) {
        let batch = try JSONEncoder().encode(["events": [event]])
        let answer = try await rig.call("POST", "/v1/stores/\(store.uuidString)/events", token: credential, raw: batch)
        let results = answer.body["appended"] as? [[String: Any]]
        return (answer.status, results?.first?["sequence"] as? Int)
    }

    @Test func writesWaitingForAStoreShareTransactions() async throws {
        try await withStore { rig, store, credential, storage in
            let before = try #require(rig.app.logs.store(store)?.lastSequence)
            let writes = (
                storage.commits.transactions.load(ordering: .relaxed), storage.commits.writes.load(ordering: .relaxed)
            )
            let events = (0..<40).map { _ in
                StoreEvent.new(
                    .scanRefused(reason: "not a ticket", ticket: nil, door: "k1"),
                    store: store,
                    device: "k1",
                    at: rig.app.logs.clock.now()
                )
            }
            enum Answer {
                case ticket(Int, String?)
                case pushed(Int, Int, Int?)
            }
            // 100 tickets, 40 pushes and every push sent a second time (a kiosk's retry), all at once.
            let answers = try await withThrowingTaskGroup(of: Answer.self) { group in
                for n in 0..<100 {
                    group.addTask {
                        let (status, code) = try await rig.takeAppTicket(store: store, from: n)
                        return .ticket(status, code)
                    }
                }
                for n in 0..<80 {
                    group.addTask {
                        let (status, sequence) = try await push(rig, store, credential, events[n % 40])
                        return .pushed(n % 40, status, sequence)
                    }
                }
                var all: [Answer] = []
                for try await answer in group { all.append(answer) }
                return all
            }

            var codes: [String] = []
            var sequences: [Int: Set<Int>] = [:]
            for answer in answers {
                switch answer {
                case .ticket(let status, let code):
                    #expect(status == 201)
                    if let code { codes.append(code) }
                case .pushed(let n, let status, let sequence):
                    #expect(status == 200)
                    if let sequence { sequences[n, default: []].insert(sequence) }
                }
            }
            // Every ticket its own number, none skipped; both sends of an event answered with one sequence.
            #expect(codes.sorted() == (1...100).map { String(format: "V%03d", $0) }.sorted())
            #expect(sequences.count == 40 && sequences.values.allSatisfy { $0.count == 1 }, "\(sequences)")

            // One gap-free log holding each event once, and the server's queue at its end.
            let log = try await storage.events(store: store, after: 0, limit: .max)
            #expect(log.compactMap(\.sequence) == Array(1...(before + 140)))
            #expect(Set(log.map(\.id)).count == log.count)
            #expect(rig.app.logs.store(store)?.lastSequence == before + 140)

            // 180 writes in fewer transactions: they were grouped.
            let transactions = storage.commits.transactions.load(ordering: .relaxed) - writes.0
            let grouped = storage.commits.writes.load(ordering: .relaxed) - writes.1
            #expect(grouped == 180)
            #expect(transactions < grouped, "\(grouped) writes in \(transactions) transactions")
            #expect(storage.commits.handedOn.load(ordering: .relaxed) == 0, "every batch in one statement")
        }
    }

    /// The day's last numbers go to the first tickets of a batch; the others are refused alone (503, try a
    /// paper ticket) and take no place in the log, and a kiosk's push in the same moment lands.
    @Test func aBatchRefusesOnlyTheTicketsPastTheDaysLastNumber() async throws {
        try await withStore { rig, store, credential, storage in
            _ = try await rig.takeAppTicket(store: store, from: 0)  // V001: the day's counter exists
            try await storage.pool.query("UPDATE ticket_numbers SET last = 65530 WHERE store = \(store)")
            let before = try #require(rig.app.logs.store(store)?.lastSequence)
            let exit = StoreEvent.new(
                .scanRefused(reason: "not a ticket", ticket: nil, door: "k1"),
                store: store,
                device: "k1",
                at: rig.app.logs.clock.now()
            )
            async let pushed = push(rig, store, credential, exit)
            let answers = try await withThrowingTaskGroup(of: (status: Int, code: String?).self) { group in
                for n in 1...10 { group.addTask { try await rig.takeAppTicket(store: store, from: n) } }
                var all: [(status: Int, code: String?)] = []
                for try await answer in group { all.append(answer) }
                return all
            }
            #expect(try await pushed.status == 200)
            #expect(storage.commits.handedOn.load(ordering: .relaxed) >= 1, "the counter's check sent a batch on")
            #expect(Set(answers.compactMap(\.code)) == Set((65531...65535).map { "V\($0)" }))
            #expect(answers.filter { $0.status == 503 }.count == 5, "\(answers)")
            let log = try await storage.events(store: store, after: 0, limit: .max)
            #expect(log.compactMap(\.sequence) == Array(1...(before + 6)), "5 tickets and the push, no gap")
        }
    }

    /// A new database's first writes plan the batch's statement while its log holds a few events: the plan must
    /// look its event ids up in the index all the same, not scan the log (a scan there made every write of a new
    /// chain's first day cost more than the one before — 190 pages read a write after 12,000 tickets).
    /// EXPLAIN of the prepared statement as the pool's connections plan it (the generic plan), on the store's
    /// few events: fails without the session's settings.
    @Test func aNewDatabasesWritesLookTheirEventsUpByIndex() async throws {
        try await withStore { rig, store, _, storage in
            for n in 0..<3 { #expect(try await rig.takeAppTicket(store: store, from: n).status == 201) }
            let plan = try await storage.pool.withConnection { connection -> String in
                _ = try await connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            PREPARE probe(uuid, integer[], uuid[], text[], bigint[], text[], text[], bytea[], \
                            bigint[], text[], integer[], bytea[]) AS \(OneStatementWrite.sql)
                            """
                    ),
                    logger: storage.logger
                ).collect()
                let rows = try await connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            EXPLAIN EXECUTE probe('\(store.uuidString)', ARRAY[0], ARRAY[gen_random_uuid()], \
                            ARRAY['k1'], ARRAY[1::bigint], ARRAY['customerExited'], ARRAY[''], ARRAY['\\x7b7d'::bytea], \
                            ARRAY[(-9223372036854775807 - 1)::bigint], ARRAY[''], ARRAY[0], ARRAY[''::bytea])
                            """
                    ),
                    logger: storage.logger
                ).collect()
                _ = try await connection.query("DEALLOCATE probe", logger: storage.logger).collect()
                return try rows.map { try $0.decode(String.self) }.joined(separator: "\n")
            }
            #expect(plan.contains("events_store_id_key"), "\(plan)")
            #expect(!plan.contains("Seq Scan on events"), "\(plan)")
        }
    }
}
