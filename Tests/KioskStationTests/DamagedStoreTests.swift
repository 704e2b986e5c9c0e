import Foundation
import GRDB
import KioskCore
import Synchronization
import Testing

@testable import KioskStation
@testable import Rigs
@testable import StationStore

/// A database the card damaged: pages overwritten with garbage, the file cut short, its header gone, or the file
/// missing. The kiosk opens a new one (it neither crash-loops nor starts unaware): the damaged file is kept aside,
/// what was found is said, and the printer numbers the day above every code it reserved before.
@Suite struct DamagedStoreTests {
    let storeID = UUID()
    let day = BusinessDay(number: 20_000)

    /// A state directory whose database printed `count` tickets (prefix A, `day`).
    func printed(_ count: Int) throws -> String {
        let dir = try stateDirectory()
        let store = try LocalStore(path: "\(dir)/kioskd.sqlite")
        for _ in 0..<count { _ = try issue(store) }
        return dir
    }

    /// An empty state directory of its own.
    func stateDirectory() throws -> String {
        let dir = NSTemporaryDirectory() + "clup-damage-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    func issue(_ store: LocalStore) throws -> IssuedTicket {
        var config = KioskConfig(store: .init(id: storeID))
        config.device.id = "d"
        let log = StationLog(store: store, queue: try QueueReplica(store: store, capacity: 10), config: config)
        return try log.issueTicket(prefix: "A", day: day, at: Timestamp(milliseconds: 1_000)) { "QR-\($0.code)" }
    }

    /// Writes `bytes` of garbage at `offset` of the database.
    func overwrite(_ dir: String, at offset: UInt64, bytes: Int) throws {
        let file = try #require(FileHandle(forWritingAtPath: "\(dir)/kioskd.sqlite"))
        try file.seek(toOffset: offset)
        var rng = SystemRandomNumberGenerator()
        try file.write(contentsOf: Data((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        try file.close()
    }

    func size(_ dir: String) throws -> UInt64 {
        try #require(try FileManager.default.attributesOfItem(atPath: "\(dir)/kioskd.sqlite")[.size] as? UInt64)
    }

    @Test func anUndamagedDatabaseOpensAsItWas() throws {
        let dir = try printed(3)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (store, damage) = try LocalStore.open(directory: dir)
        #expect(damage == nil)
        #expect(try issue(store).ticket.code.description == "A004")
        #expect(try store.quickCheck() == ["ok"])
    }

    @Test(arguments: ["pages", "header", "cut"])
    func aDamagedDatabaseIsKeptAsideAndNumbersGoOnAboveTheReserved(_ damage: String) throws {
        let dir = try printed(130)  // two reservations: up to 100, then up to 200
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let length = try size(dir)
        #expect(length > 32 * 1024, "too small a database to damage its middle: \(length) bytes")
        switch damage {
        case "pages": try overwrite(dir, at: 2 * 1024, bytes: Int(length) - 3 * 1024)
        case "header": try overwrite(dir, at: 0, bytes: 100)
        default: truncate("\(dir)/kioskd.sqlite", off_t(length / 2 + 1000))
        }

        let (store, found) = try LocalStore.open(directory: dir)
        let report = try #require(found, "the \(damage) damage was not found")
        let kept = try #require(report.keptAs)
        #expect(FileManager.default.fileExists(atPath: kept), "the damaged file was not kept: \(kept)")
        #expect(report.numberedAbove == "A200" && report.numberedOn == "2024-10-04")  // day 20,000
        #expect(report.sentence.contains("kept aside as \(kept)"))
        #expect(report.sentence.contains("the codes of 2024-10-04 go on above A200"))
        #expect(try store.quickCheck() == ["ok"] && store.events().isEmpty)
        #expect(try issue(store).ticket.code.description == "A201")
        #expect(try issue(store).ticket.code.description == "A202")

        // Started again on the new database: nothing to report, the numbers go on.
        let (again, none) = try LocalStore.open(directory: dir)
        #expect(none == nil)
        #expect(try issue(again).ticket.code.description == "A203")
    }

    /// Pages the card left whole still give the signing key (the tickets customers hold were signed with it) and
    /// the store's key ring.
    @Test func theSigningKeyAndTheKeyRingAreCarriedOver() throws {
        let dir = try printed(130)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let other = TicketSigner().publicKey
        let listed = TicketSigner().publicKey
        let (key, ring): (KeyID, [LocalStore.TrustedKey]) = try {
            let store = try LocalStore(path: "\(dir)/kioskd.sqlite")
            try store.trust(other, device: "exit", at: Timestamp(milliseconds: 5))
            try store.trust(listed, device: "printer-2", at: Timestamp(milliseconds: 6), fromServer: true)
            return (try store.signingKey().keyID, try store.trustedKeys())
        }()
        // The events' and tickets' pages, the last third of the file (the schema's pages came first), overwritten.
        let length = try size(dir)
        try overwrite(dir, at: length * 2 / 3 / 1024 * 1024, bytes: Int(length / 3))

        let (store, found) = try LocalStore.open(directory: dir)
        let report = try #require(found)
        #expect(report.carriedOver == ["the signing key", "2 keys of the store's ring"], "\(report)")
        #expect(report.sentence.contains("carried over: the signing key, 2 keys of the store's ring"))
        #expect(try store.signingKey().keyID == key)
        #expect(try store.trustedKeys() == ring)
        // Which keys the server listed is carried too: a ring without it revokes that key, not the hand-trusted one.
        let (_, removed) = try store.adoptServerRing([], own: key, at: Timestamp(milliseconds: 7))
        #expect(try removed.map(\.device) == ["printer-2"] && store.trustedKeys().map(\.device) == ["exit"])
        #expect(try issue(store).ticket.code.description == "A201")
    }

    /// A card that goes bad under a running kiosk: the first read that meets the damage marks the file and
    /// tells the kiosk once (it stops, and systemd starts it again); that start checks the whole file and sets it
    /// aside, numbering above the reserved codes as at any other damage.
    @Test func damageMetWhileRunningIsSetAsideAtTheNextStart() throws {
        let dir = try printed(130)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = "\(dir)/kioskd.sqlite"
        try LocalStore.checkpoint(path)
        let store = try LocalStore(path: path)
        let told = Mutex<[String]>([])
        store.onDamage { message in told.withLock { $0.append(message) } }
        #expect(try LocalStore.overwritePages(of: ["events"], in: path) > 0)
        store.db.queue.releaseMemory()  // what the kiosk had cached is read from the card again
        #expect(throws: DatabaseError.self) { try store.events() }
        #expect(throws: DatabaseError.self) { try store.events() }
        let marker = WatchedQueue.markerPath(of: path)
        #expect(told.withLock { $0.count } == 1 && store.damageSeen != nil)
        #expect(FileManager.default.fileExists(atPath: marker))

        let (next, found) = try LocalStore.open(directory: dir)
        let report = try #require(found, "the damage met while running was not set aside")
        #expect(report.found.hasPrefix("met while running: "), "\(report.found)")
        #expect(report.keptAs.map { FileManager.default.fileExists(atPath: $0) } == true)
        #expect(!FileManager.default.fileExists(atPath: marker))
        #expect(try next.integrityCheck() == ["ok"] && issue(next).ticket.code.description == "A201")
    }

    /// A mark whose file passes the whole check (an error that did not come back) is dropped, the file kept.
    @Test func aMarkOnAWholeFileIsDropped() throws {
        let dir = try printed(3)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let marker = WatchedQueue.markerPath(of: "\(dir)/kioskd.sqlite")
        try Data("database disk image is malformed".utf8).write(to: URL(fileURLWithPath: marker))
        let (store, damage) = try LocalStore.open(directory: dir)
        #expect(damage == nil && !FileManager.default.fileExists(atPath: marker))
        #expect(try issue(store).ticket.code.description == "A004")
    }

    @Test func aMissingDatabaseWhereOneWasKeptIsSaid() throws {
        let dir = try printed(5)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.removeItem(atPath: "\(dir)/kioskd.sqlite")
        try? FileManager.default.removeItem(atPath: "\(dir)/kioskd.sqlite-wal")

        let (store, found) = try LocalStore.open(directory: dir)
        let report = try #require(found)
        #expect(report.found == "the database was missing or empty" && report.keptAs == nil)
        #expect(try issue(store).ticket.code.description == "A101")
    }

    @Test func aNewKioskHasNothingToReport() throws {
        let dir = try stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (store, found) = try LocalStore.open(directory: dir)
        #expect(found == nil)
        #expect(try issue(store).ticket.code.description == "A001")
    }

    @Test func onlyTheNewestDamagedCopiesAreKept() throws {
        let dir = try printed(2)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for second in 0..<4 {
            try overwrite(dir, at: 0, bytes: 100)
            let (store, found) = try LocalStore.open(directory: dir, now: Date(timeIntervalSince1970: Double(second)))
            #expect(found?.keptAs?.hasSuffix("19700101T00000\(second)Z") == true)
            _ = try issue(store)
        }
        let kept = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(".damaged-") }
        // (no -shm beside them: the read-only look for what can be carried over leaves none)
        #expect(kept.sorted() == ["kioskd.sqlite.damaged-19700101T000002Z", "kioskd.sqlite.damaged-19700101T000003Z"])
    }
}
