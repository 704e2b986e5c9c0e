import Foundation
import KioskCore
import Testing

@testable import CLupServer
@testable import Rigs

/// clup-server replicas sharing one PostgreSQL database (a private cluster of Debian's server): each knows
/// what was written through the others, a long-poll on one wakes for an event appended through another, and
/// pushes through both make one gap-free log with the same queue everywhere, and one replica at a time runs the
/// background duties.
@Suite(.serialized, .enabled(if: PostgresRig.available, "needs Debian's postgresql (make test installs it)"))
struct ReplicaTests {
    /// Waits up to 5 s for `condition`.
    func eventually(_ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// Two replicas on a new database of a private cluster, stopped after `body` whatever happened.
    func withTwoReplicas(_ body: (ServerRig, ServerRig) async throws -> Void) async throws {
        let cluster = try PostgresRig()
        defer { cluster.stop() }
        let database = try cluster.createDatabase()
        let one = try await ServerRig(database: database)
        let two = try await ServerRig(database: database)
        do {
            try await body(one, two)
        } catch {
            await one.stop()
            await two.stop()
            throw error
        }
        await one.stop()
        await two.stop()
    }

    @Test func replicasShareStoresLogsAndWakeUps() async throws {
        try await withTwoReplicas { one, two in
            // A store registered through one replica is known to the other, which enrolls its kiosk.
            let store = try await one.registerStore()
            #expect(try await eventually { two.app.logs.store(store) != nil }, "replica two never heard of the store")
            let credential = try await two.enroll("k1", store: store)
            let path = "/v1/stores/\(store.uuidString)/events"
            func push(_ rig: ServerRig) async throws -> Int {
                let event = StoreEvent.new(
                    .scanRefused(reason: "not a ticket", ticket: nil, door: "k1"),
                    store: store,
                    device: "k1",
                    at: rig.app.logs.clock.now()
                )
                let batch = try JSONEncoder().encode(["events": [event]])
                return try await rig.call("POST", path, token: credential, raw: batch).status
            }

            // The replica holding the duties' lease starts the store's business day; both replicas see it.
            #expect(try await eventually { one.queue(store)?.day != nil && two.queue(store)?.day != nil })
            let before = try #require(two.app.logs.store(store)?.lastSequence)

            // A kiosk long-polling replica two hears an event appended through replica one at once.
            async let polled = two.call("GET", path + "?after=\(before)&wait=20", token: credential)
            try await Task.sleep(for: .milliseconds(300))
            let pushed = ContinuousClock.now
            #expect(try await push(one) == 200)
            let page = try await polled
            let heard = ContinuousClock.now - pushed
            #expect((page.body["events"] as? [[String: Any]])?.first?["sequence"] as? Int == Int(before) + 1)
            #expect(heard < .seconds(2), "the long-poll on the other replica woke after \(heard)")

            // Pushes through both at once: one log numbered without a gap, the same queue on both.
            try await withThrowingTaskGroup(of: Int.self) { pushes in
                for n in 0..<40 { pushes.addTask { try await push(n % 2 == 0 ? one : two) } }
                for try await status in pushes { #expect(status == 200) }
            }
            let log = try await one.app.database.events(store: store, after: 0, limit: .max)
            let last = Int64(before) + 41
            #expect(log.compactMap(\.sequence) == Array(1...last))
            #expect(log.filter { $0.kind == "scanRefused" }.count == 41)
            #expect(try await eventually { one.app.logs.store(store)?.lastSequence == last })
            #expect(try await eventually { two.app.logs.store(store)?.lastSequence == last })
            #expect(one.queue(store)?.freePlaces == two.queue(store)?.freePlaces)

            // Exactly one replica runs the background duties; when it stops, the other takes over.
            #expect(try await eventually { one.app.lease.isHeld != two.app.lease.isHeld })
            let (holder, other) = one.app.lease.isHeld ? (one, two) : (two, one)

            // A profile changed through one replica is what the other answers with.
            let changed = try await two.call("PATCH", "/v1/stores/\(store.uuidString)", json: ["capacity": 7])
            #expect(changed.status == 200, "\(changed.body)")
            #expect(try await eventually { one.app.logs.store(store)?.record.profile.capacity == 7 })

            await holder.stop()
            #expect(try await eventually { other.app.lease.isHeld }, "the duties were not taken over")
        }
    }

    /// Shoppers taking tickets at once through two replicas each get their ticket back in the answer (on
    /// PostgreSQL, concurrent commits report out of order: a replica reads its own write before it answers —
    /// before, some answers were "ticket not found" for a ticket just issued).
    @Test func everyTakerReadsBackTheTicketItJustTook() async throws {
        try await withTwoReplicas { one, two in
            let store = try await one.registerStore(["capacity": 1000])
            #expect(try await eventually { two.app.logs.store(store) != nil })
            let answers = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for n in 0..<120 {
                    group.addTask {
                        try await (n % 2 == 0 ? one : two).takeAppTicket(store: store, from: n, network: 9)
                    }
                }
                var all: [(Int, String?)] = []
                for try await answer in group { all.append(answer) }
                return all
            }
            #expect(answers.allSatisfy { $0.0 == 201 }, "\(answers.filter { $0.0 != 201 })")
            #expect(Set(answers.compactMap(\.1)).count == 120, "every ticket its own code")
        }
    }

    /// The wait estimates are learnt once for the fleet: the lease holder learns the stores' wait models
    /// and the other replica takes the same ones (same computation time) instead of its own.
    @Test func theWaitEstimatesAreLearntOnceForTheFleet() async throws {
        try await withTwoReplicas { one, two in
            let store = try await one.registerStore()
            #expect(try await eventually { two.app.logs.store(store) != nil })
            #expect(try await eventually { one.app.lease.isHeld != two.app.lease.isHeld })
            let (holder, other) = one.app.lease.isHeld ? (one, two) : (two, one)
            try await Task.sleep(for: .milliseconds(20))  // a later computation time than any before
            try await holder.app.logs.refreshModels(at: holder.app.logs.clock.now())
            let model = try #require(holder.app.logs.store(store)?.model)
            #expect(
                try await eventually { other.app.logs.store(store)?.model == model },
                "the other replica's model is not the one the holder computed at \(model.computedAt)"
            )
        }
    }

    /// A store registered through one replica and asked for at another before the notification arrived is
    /// looked up in the database instead of answered 404 — a few look-ups a second, so made-up ids cannot
    /// turn into a database read each. (A replica's queues that no notification reaches stand for the moment
    /// before it arrives.)
    @Test func aStoreJustRegisteredElsewhereIsFound() async throws {
        try await withTwoReplicas { one, two in
            let unfollowed = try await StoreQueues(database: two.app.database)
            let store = try await one.registerStore()
            #expect(unfollowed.store(store) == nil)
            let found = try await unfollowed.require(store)
            #expect(
                found.record.id == store && found.record.profile.name == one.app.logs.store(store)?.record.profile.name
            )
            #expect(found.lastSequence == one.app.logs.store(store)?.lastSequence, "its log read too")

            // Made-up ids: 404, and past the look-ups allowed (20 at once), a real new store waits for its
            // notification.
            let later = try await one.registerStore(["name": "Later Market"], manager: "later")
            for _ in 0..<30 {
                await #expect(throws: Refusal.self) { _ = try await unfollowed.require(UUID()) }
            }
            do {
                _ = try await unfollowed.require(later)
                Issue.record("the 21st look-up in a moment read the database")
            } catch {
                #expect((error as? Refusal)?.code == .notFound, "\(error)")
            }
            try await Task.sleep(for: .milliseconds(120))
            #expect(try await unfollowed.require(later).record.id == later, "found again once look-ups are allowed")
        }
    }

    /// A replica follows another's writes from their notifications, which carry the events: it reads nothing
    /// from the log for them (before, each of the other's commits cost it a read, so the database's work a
    /// write grew with the number of replicas). A batch too large for a notification is read once.
    @Test func aReplicaFollowsAnothersWritesWithoutReadingThem() async throws {
        try await withTwoReplicas { one, two in
            let store = try await one.registerStore()
            #expect(try await eventually { two.app.logs.store(store) != nil })
            let credential = try await one.enroll("k1", store: store)
            #expect(try await eventually { one.queue(store)?.day != nil && two.queue(store)?.day != nil })
            func push(_ count: Int) async throws -> Int {
                let events = (0..<count).map { _ in
                    StoreEvent.new(
                        .scanRefused(reason: "not a ticket", ticket: nil, door: "k1"),
                        store: store,
                        device: "k1",
                        at: one.app.logs.clock.now()
                    )
                }
                let batch = try JSONEncoder().encode(["events": events])
                let path = "/v1/stores/\(store.uuidString)/events"
                return try await one.call("POST", path, token: credential, raw: batch).status
            }
            let reads = two.app.logs.logReads.load(ordering: .relaxed)
            for _ in 0..<30 { #expect(try await push(1) == 200) }
            let pushed = try #require(one.app.logs.store(store)?.lastSequence)
            #expect(try await eventually { two.app.logs.store(store)?.lastSequence == pushed })
            let followed = two.app.logs.logReads.load(ordering: .relaxed) - reads
            #expect(followed <= 1, "replica two read the log \(followed) times for 30 commits it was told of")

            // 100 events (~13 KB) do not fit in a notification: it says where the log ends, the replica reads.
            #expect(try await push(100) == 200)
            let last = try #require(one.app.logs.store(store)?.lastSequence)
            #expect(last == pushed + 100)
            #expect(try await eventually { two.app.logs.store(store)?.lastSequence == last })
            #expect(two.app.logs.logReads.load(ordering: .relaxed) > reads + followed, "the large batch was read")
            #expect(one.queue(store)?.inside == two.queue(store)?.inside)
        }
    }
}
