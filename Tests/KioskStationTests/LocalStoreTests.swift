import Foundation
import GRDB
import KioskCore
import KioskStation
import Testing

@_spi(Seeding) @testable import StationStore

@Suite struct LocalStoreTests {
    let storeID = UUID()
    let day = BusinessDay(number: 20_000)

    func temporaryStore() throws -> (LocalStore, String) {
        let dir = NSTemporaryDirectory() + "clup-store-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return (try LocalStore(path: "\(dir)/kioskd.sqlite"), dir)
    }

    /// The station's log over `store` (the only way a station makes events).
    func log(_ store: LocalStore) throws -> StationLog {
        var config = KioskConfig(store: .init(id: storeID))
        config.device.id = "d"
        return StationLog(store: store, queue: try QueueReplica(store: store, capacity: 10), config: config)
    }

    func issue(_ store: LocalStore, prefix: String = "A", day: BusinessDay? = nil) throws -> IssuedTicket {
        try log(store).issueTicket(prefix: prefix, day: day ?? self.day, at: Timestamp(milliseconds: 1_000)) {
            "QR-\($0.code)"
        }
    }

    @Test func numbersAreConsecutivePerPrefixAndDay() throws {
        let (store, dir) = try temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try issue(store).ticket.code.description == "A001")
        #expect(try issue(store).ticket.code.description == "A002")
        #expect(try issue(store, prefix: "B").ticket.code.description == "B001")
        #expect(try issue(store, day: BusinessDay(number: 20_001)).ticket.code.description == "A001")
        #expect(try store.issuedCount(prefix: "A", day: day) == 2)
    }

    @Test func theWaitingTicketSurvivesAReopen() throws {
        let (store, dir) = try temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = try issue(store)
        try store.mark(first.ticket.id, .printed)
        let key = try store.signingKey()

        let reopened = try LocalStore(path: "\(dir)/kioskd.sqlite")
        let waiting = try #require(try reopened.waitingTicket(prefix: "A"))
        #expect(waiting.ticket == first.ticket && waiting.state == .printed && waiting.qr == "QR-A001")
        #expect(try reopened.signingKey().keyID == key.keyID)

        let log = try log(reopened)
        #expect(try log.recordTaken(waiting.ticket, at: Timestamp(milliseconds: 2_000)))
        // Once only: a second record writes nothing and says so.
        #expect(try !log.recordTaken(waiting.ticket, at: Timestamp(milliseconds: 3_000)))
        #expect(try !log.voidTicket(waiting.ticket, at: Timestamp(milliseconds: 3_000)))
        #expect(log.queue.snapshot.stage(of: waiting.ticket.id) == .waiting(joined: Timestamp(milliseconds: 2_000)))
        #expect(try reopened.waitingTicket(prefix: "A") == nil)
        let kinds = try reopened.events().map(\.kind)
        #expect(kinds == ["ticketIssued", "ticketTaken"])
        #expect(try issue(reopened).ticket.code.description == "A002")
    }

    /// The printer asks for the ticket not taken yet after every tear-off: a search of the open tickets'
    /// index, never a scan of every ticket printed (a year's worth, on a busy station).
    @Test func theWaitingTicketIsFoundWithoutAScan() throws {
        let (store, dir) = try temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let plan = try store.db.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + LocalStore.waitingTicketSQL, arguments: ["A"])
                .map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("printed_tickets_open") }, "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN") || $0.contains("TEMP B-TREE") }, "\(plan)")
    }

    @Test func databaseIsWALWithFullSync() throws {
        let (store, dir) = try temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (journal, sync) = try store.db.read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"))
        }
        #expect(journal == "wal")
        #expect(sync == 2)  // FULL
    }

    /// A new database has small pages (fewer bytes to the card a ticket); one made before keeps its own.
    @Test func aNewDatabaseHasSmallPagesAnOldOneKeepsItsOwn() throws {
        let (store, dir) = try temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try store.db.read { try Int.fetchOne($0, sql: "PRAGMA page_size") } == 1024)
        let old = "\(dir)/old.sqlite"
        try DatabaseQueue(path: old).write { db in
            try db.execute(sql: "PRAGMA page_size = 4096; CREATE TABLE t (x); INSERT INTO t VALUES (1)")
        }
        let reopened = try LocalStore(path: old)
        #expect(try reopened.db.read { try Int.fetchOne($0, sql: "PRAGMA page_size") } == 4096)
        #expect(try issue(reopened).ticket.code.description == "A001")
    }

    @Test func aBrokenDatabaseFileGivesAClearError() throws {
        let dir = NSTemporaryDirectory() + "clup-store-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: "\(dir)/kioskd.sqlite"))
        #expect(throws: (any Error).self) { try LocalStore(path: "\(dir)/kioskd.sqlite") }
    }

    /// The key ring is cached on disk: trusted keys survive a reopen, join the ring with the device's own key,
    /// and a distrusted key leaves it.
    @Test func trustedKeysAreKeptOnDisk() throws {
        let (store, dir) = try temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let other = TicketSigner()
        let third = TicketSigner()
        try store.trust(other.publicKey, device: "exit-door", at: Timestamp(milliseconds: 1))
        try store.trust(third.publicKey, device: "side-door", at: Timestamp(milliseconds: 2))
        try store.trust(other.publicKey, device: "main-door", at: Timestamp(milliseconds: 3))  // renamed, not doubled

        let reopened = try LocalStore(path: "\(dir)/kioskd.sqlite")
        #expect(try reopened.trustedKeys().map(\.device) == ["main-door", "side-door"])
        let ring = try reopened.keyRing()
        #expect(ring.count == 3)
        #expect(ring.key(for: other.keyID)?.rawRepresentation == other.publicKey.rawRepresentation)
        #expect(ring.key(for: try reopened.signingKey().keyID) != nil)

        #expect(try reopened.distrust(keyID: third.keyID.description.uppercased()))
        #expect(try !reopened.distrust(keyID: third.keyID.description))
        #expect(try reopened.keyRing().key(for: third.keyID) == nil)
    }

    /// kioskd starts from the kept fold of the pulled log and what was pulled after it (issue "clup-server
    /// starts from today": kioskd's own start): its queue is the whole log's fold even when the events before
    /// the fold are no longer read; a fold kept with another configured capacity is not used.
    @Test func aStartFromTheKeptFoldIsTheWholeLogsFold() throws {
        let (store, dir) = try temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var log: [StoreEvent] = []
        func add(_ body: StoreEvent.Body, at time: Timestamp) {
            var event = StoreEvent(id: .v7(at: time), store: storeID, device: "d", time: time, body: body)
            event.sequence = Int64(log.count + 1)
            log.append(event)
        }
        for d in 0..<4 {
            let start = Timestamp(seconds: 1_790_000_000 + Int64(d) * 86_400)
            let hours = DayHours(opens: start + .seconds(3_600), closes: start + .seconds(12 * 3_600))
            add(.dayStarted(BusinessDay(number: 20_000 + Int64(d)), hours: hours), at: start)
            for n in 1...30 {
                let time = hours.opens + .seconds(Int64(n) * 600)
                let ticket = Ticket(
                    id: .v7(at: time),
                    store: storeID,
                    kind: .paper,
                    code: TicketCode(prefix: "A", number: n),
                    issuedAt: time,
                    issuer: "d"
                )
                add(.ticketIssued(ticket), at: time)
                add(.ticketTaken(ticket.id), at: time + .seconds(2))
                if n % 5 == 0 { continue }  // still waiting at closing: expires at the next day's start
                add(.ticketAdmitted(ticket.id, door: "door"), at: time + .seconds(60))
                add(.customerExited, at: time + .seconds(900))
            }
        }
        let half = log.count / 2
        _ = try store.storePulled(Array(log[..<half]), through: Int64(half))
        let first = try QueueReplica(store: store, capacity: 3)
        let data = try JSONEncoder().encode(first.confirmedSnapshot.snapshot)
        try store.keepConfirmedFold(data, through: Int64(half), capacity: 3)
        _ = try store.storePulled(Array(log[half...]), through: Int64(log.count))
        // The events the fold covers are not read again: gone, the start is the same.
        try store.db.write { try $0.execute(sql: "DELETE FROM events WHERE sequence <= ?", arguments: [half]) }
        let started = try QueueReplica(store: store, capacity: 3)
        let whole = QueueState(capacity: 3, events: log)
        #expect(started.confirmedSnapshot == whole)
        #expect(started.snapshot == whole)
        #expect(started.confirmedSnapshot.snapshot.ticketCount < log.count / 8)
        #expect(try store.keptConfirmedFold(capacity: 4) == nil)
    }
}
