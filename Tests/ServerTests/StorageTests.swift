import Foundation
import GRDB
import KioskCore
import Logging
import ServiceSupport
import Synchronization
import Testing

@testable import CLupServer
@testable import Rigs

/// The promises of ``ServerStorage``, held by both backends: SQLite (a file) and PostgreSQL (a private cluster
/// of Debian's server, started for each test and stopped after it). Two storages opened on one database stand
/// for two server replicas.
@Suite(.serialized) struct StorageTests {
    enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgres
        var testDescription: String { rawValue }

        /// PostgreSQL where Debian's server is installed, and always under `make test` (which installs it).
        static var available: [Backend] { PostgresRig.available ? allCases : [.sqlite] }
    }

    /// A fresh database of `backend`; `open` opens a storage on it (call it twice for two replicas).
    static func withDatabase(
        _ backend: Backend,
        clock: WallClock = .system,
        _ body: (_ open: @escaping () async throws -> any ServerStorage) async throws -> Void
    ) async throws {
        try await withDatabase(backend, clock: clock) { open, _ in try await body(open) }
    }

    /// The same, with `sql`: runs a statement on the database as its owner, beside the storages (a fault to
    /// plant).
    static func withDatabase(
        _ backend: Backend,
        clock: WallClock = .system,
        _ body: (
            _ open: @escaping () async throws -> any ServerStorage, _ sql: @escaping (String) throws -> Void
        ) async throws -> Void
    ) async throws {
        switch backend {
        case .sqlite:
            let directory = HIL.temporaryDirectory("storage")
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let path = "\(directory)/clup.sqlite"
            let open = { try SQLiteStorage(path: path, clock: clock) as any ServerStorage }
            try await body(open) { statement in
                try DatabaseQueue(path: path).write { try $0.execute(sql: statement) }
            }
        case .postgres:
            let cluster = try PostgresRig()
            defer { cluster.stop() }
            let url = try cluster.createDatabase()
            var running: [Task<Void, Never>] = []
            defer { for pool in running { pool.cancel() } }
            let open = {
                guard case .postgres(let address) = try DatabaseLocation(url) else {
                    throw StorageFailure(description: url)
                }
                var logger = Logger(label: "test")
                logger.logLevel = .error
                let storage = try await PostgresStorage(address, clock: clock, logger: logger)
                running.append(Task { await storage.run() })
                return storage as any ServerStorage
            }
            try await body(open) { statement in
                let result = try cluster.sql(statement, database: String(url.split(separator: "/").last ?? ""))
                guard result.status == 0 else { throw StorageFailure(description: "\(statement): \(result.error)") }
            }
        }
    }

    /// An app ticket or booking of `store` to issue at `now`, as the server's logs make one.
    static func issue(_ kind: TicketKind, of store: StoreRecord, at now: Timestamp) -> ServerIssue {
        ServerIssue(
            kind: kind,
            store: store.id,
            slot: nil,
            told: nil,
            at: now,
            day: store.profile.calendar.businessDay(at: now)
        )
    }

    static func profile(_ name: String = "Corner Market") -> StoreProfile {
        StoreProfile(
            name: name,
            address: "1 Main Street",
            location: .init(latitude: 45.46, longitude: 9.19),
            capacity: 20,
            openingHours: Array(repeating: StoreProfile.Hours(open: "08:00", close: "20:00"), count: 7),
            timeZone: "Europe/Rome",
            averageVisitMinutes: 20,
            slotMinutes: 15,
            slotSize: 4
        )
    }

    /// A store of ``profile(_:)`` and its manager anna, registered at 1 s after 1970; its id.
    static func register(in storage: any ServerStorage) async throws -> StoreID {
        try await storage.register(
            profile(),
            manager: "anna",
            passwordHash: try PasswordHash(password: "correct horse battery"),
            at: Timestamp(milliseconds: 1_000)
        ).id
    }

    static func customerExited(_ store: StoreID, at ms: Int64) -> StoreEvent {
        StoreEvent.new(.customerExited, store: store, device: "door-1", at: Timestamp(milliseconds: ms))
    }

    /// A database that cannot be reached fails the start at once, saying what to check (not a pool that
    /// retries for ever while the server looks alive).
    @Test func anUnreachableDatabaseFailsTheStartWithTheReason() async throws {
        let location = try DatabaseLocation("postgres://clup@127.0.0.1:9/clup")
        guard case .postgres(let address) = location else { throw StorageFailure(description: "\(location)") }
        let started = ContinuousClock.now
        do {
            _ = try await PostgresStorage(address, logger: Logger(label: "test"))
            Issue.record("a database nobody serves was accepted")
        } catch {
            #expect("\(error)".contains("cannot open the PostgreSQL database postgres://clup@127.0.0.1:9/clup"))
            #expect("\(error)".contains("check that the server runs"))
        }
        #expect(ContinuousClock.now - started < .seconds(10))
        // The URL's mistakes are named before anything is tried.
        for (text, says) in [
            ("postgres://127.0.0.1/clup", "needs a user and a database name"),
            ("postgres://clup@127.0.0.1:5432/", "needs a user and a database name"),
            ("postgres://clup@127.0.0.1/clup?sslmode=always", "sslmode 'always'"),
            ("mysql://clup@127.0.0.1/clup", "a file path (SQLite) or postgres://"),
        ] {
            #expect(throws: DatabaseLocation.Invalid.self) { _ = try DatabaseLocation(text) }
            do { _ = try DatabaseLocation(text) } catch {
                #expect(error.description.contains(says), "\(text): \(error)")
            }
        }
        #expect(
            try DatabaseLocation("/var/lib/clup-server/clup.sqlite")
                == .sqlite(path: "/var/lib/clup-server/clup.sqlite")
        )
        let withPassword = try DatabaseLocation("postgresql://clup:s%3Acret@db:6543/chain", environment: [:])
        guard case .postgres(let parsed) = withPassword else { throw StorageFailure(description: "\(withPassword)") }
        #expect(
            parsed.password == "s:cret" && parsed.port == 6543 && parsed.database == "chain" && parsed.tls == .prefer
        )
        #expect(!withPassword.description.contains("cret"))
        let fromEnvironment = try DatabaseLocation("postgres://clup@db/chain", environment: ["PGPASSWORD": "pw"])
        guard case .postgres(let other) = fromEnvironment else {
            throw StorageFailure(description: "\(fromEnvironment)")
        }
        #expect(other.password == "pw" && other.port == 5432)
    }

    @Test(arguments: Backend.available) func storesAndManagersAreKeptAndUnique(_ backend: Backend) async throws {
        try await Self.withDatabase(backend) { open in
            let storage = try await open()
            let now = Timestamp(milliseconds: 1_700_000_000_000)
            let record = try await storage.register(
                Self.profile(),
                manager: "anna",
                passwordHash: try PasswordHash(password: "correct horse battery"),
                at: now
            )
            await #expect(throws: StorageRefusal.storeRegistered(name: "Corner Market")) {
                _ = try await storage.register(
                    Self.profile(),
                    manager: "bruno",
                    passwordHash: try PasswordHash(password: "correct horse battery"),
                    at: now
                )
            }
            await #expect(throws: StorageRefusal.managerNameTaken("anna")) {
                _ = try await storage.register(
                    Self.profile("Other Market"),
                    manager: "anna",
                    passwordHash: try PasswordHash(password: "correct horse battery"),
                    at: now
                )
            }
            // Read back by a second storage on the same database (another replica).
            let stores = try await open().stores()
            #expect(stores.map(\.id) == [record.id])
            #expect(stores.first?.profile == Self.profile())
            #expect(stores.first?.signer.publicKey.rawRepresentation == record.signer.publicKey.rawRepresentation)
            let manager = try #require(try await storage.manager("anna"))
            #expect(manager.store == record.id && manager.password.matches("correct horse battery"))
            #expect(try await storage.manager("nobody") == nil)

            var changed = Self.profile()
            changed.capacity = 35
            _ = try await storage.setProfile(changed, store: record.id, appending: []) { _ in }
            #expect(try await storage.stores().first?.profile.capacity == 35)
        }
    }

    /// A store's kept live state: the latest one only, never replaced by an older one (two replicas that held
    /// the lease one after the other), and another replica reads it.
    @Test(arguments: Backend.available) func aSnapshotIsKeptAndNeverGoesBack(_ backend: Backend) async throws {
        try await Self.withDatabase(backend) { open in
            let storage = try await open()
            let store = try await Self.register(in: storage)
            #expect(try await storage.snapshot(store: store) == nil)
            try await storage.saveSnapshot(store: store, sequence: 5, data: Data("five".utf8))
            try await storage.saveSnapshot(store: store, sequence: 9, data: Data("nine".utf8))
            try await storage.saveSnapshot(store: store, sequence: 7, data: Data("seven".utf8))
            let other = try await open()
            for storage in [storage, other] {
                let kept = try #require(try await storage.snapshot(store: store))
                #expect(kept.sequence == 9 && kept.data == Data("nine".utf8))
            }
        }
    }

    @Test(arguments: Backend.available) func appendsAreGapFreeAndIdempotent(_ backend: Backend) async throws {
        try await Self.withDatabase(backend) { open in
            let storage = try await open()
            let store = try await Self.register(in: storage)
            let first = (1...3).map { Self.customerExited(store, at: Int64($0) * 1000) }
            let committed = Mutex<[Int64]>([])
            let results = try await storage.append(first, store: store) { added in
                committed.withLock { $0 += added.compactMap(\.sequence) }
            }
            #expect(results.map(\.sequence) == [1, 2, 3] && results.allSatisfy(\.new))

            // A retry of two with one new event: the two keep their sequences, only the new one is appended.
            let late = Self.customerExited(store, at: 9_000)
            let retry = try await storage.append([first[2], late, first[0]], store: store) { added in
                committed.withLock { $0 += added.compactMap(\.sequence) }
            }
            #expect(retry.map(\.sequence) == [3, 4, 1])
            #expect(retry.map(\.new) == [false, true, false])
            #expect(committed.withLock { $0 } == [1, 2, 3, 4])

            let log = try await storage.events(store: store, after: 0)
            #expect(log.map(\.sequence) == [1, 2, 3, 4])
            #expect(log.map(\.id) == first.map(\.id) + [late.id])
            #expect(try await storage.events(store: store, after: 2, limit: 1).map(\.sequence) == [3])
            #expect(try await storage.events(store: store, from: 2_000, to: 9_000).map(\.sequence) == [2, 3])

            // Ids are unique within a store's log only: the same id in another store is that store's own
            // event, and neither log sees the other's (no store can claim, or block, another's ids).
            let other = try await storage.register(
                Self.profile("Other Market"),
                manager: "bruno",
                passwordHash: try PasswordHash(password: "correct horse battery"),
                at: Timestamp(milliseconds: 1_000)
            ).id
            var twin = late
            twin.store = other
            let filed = try await storage.append([twin], store: other) { _ in }
            #expect(filed.map(\.sequence) == [1] && filed.allSatisfy(\.new))
            #expect(try await storage.events(store: other, after: 0).map(\.id) == [late.id])
            #expect(try await storage.events(store: store, after: 0).map(\.sequence) == [1, 2, 3, 4])
        }
    }

    /// Two replicas (two storages on one database) appending to one store at once: one log, numbered 1…n
    /// without a gap or a repeat, every event exactly once.
    @Test(arguments: Backend.available) func concurrentAppendsFromTwoReplicasMakeOneLog(_ backend: Backend) async throws
    {
        try await Self.withDatabase(backend) { open in
            let replicas: [any ServerStorage] = [try await open(), try await open()]
            let store = try await replicas[0].register(
                Self.profile(),
                manager: "anna",
                passwordHash: try PasswordHash(password: "correct horse battery"),
                at: Timestamp(milliseconds: 1_000)
            ).id
            let sent = try await withThrowingTaskGroup(of: [EventID].self) { tasks in
                for writer in 0..<4 {
                    let storage = replicas[writer % 2]
                    tasks.addTask {
                        var ids: [EventID] = []
                        for n in 0..<25 {
                            let batch = (0..<2).map {
                                Self.customerExited(store, at: Int64(writer * 1000 + n * 2 + $0))
                            }
                            _ = try await storage.append(batch, store: store) { _ in }
                            ids += batch.map(\.id)
                        }
                        return ids
                    }
                }
                return try await tasks.reduce(into: []) { $0 += $1 }
            }
            let log = try await replicas[1].events(store: store, after: 0, limit: .max)
            #expect(log.compactMap(\.sequence) == Array(1...200))
            #expect(Set(log.map(\.id)) == Set(sent) && log.count == sent.count)
        }
    }

    @Test(arguments: Backend.available) func appTicketsAreNumberedOnceAndHeld(_ backend: Backend) async throws {
        try await Self.withDatabase(backend) { open in
            let replicas: [any ServerStorage] = [try await open(), try await open()]
            let now = Timestamp(milliseconds: 1_700_000_000_000)
            let store = try await replicas[0].register(
                Self.profile(),
                manager: "anna",
                passwordHash: try PasswordHash(password: "correct horse battery"),
                at: now
            )
            let issued = try await withThrowingTaskGroup(of: IssuedTicket.self) { tasks in
                for n in 0..<20 {
                    tasks.addTask {
                        try await replicas[n % 2].issue(
                            IssueOrder(
                                Self.issue(.app, of: store, at: now),
                                holder: Holder(hash: Data([UInt8(n)])),
                                check: nil
                            ),
                            onCommit: { _ in }
                        )
                    }
                }
                return try await tasks.reduce(into: []) { $0.append($1) }
            }
            #expect(issued.map(\.ticket.code.number).sorted() == Array(1...20))
            #expect(issued.map(\.sequence).sorted() == Array(1...20))
            let log = try await replicas[0].events(store: store.id, after: 0)
            #expect(log.map(\.kind) == Array(repeating: "ticketIssued", count: 20))
            let holders = try await replicas[1].holders(since: now)
            #expect(Set(holders.map(\.0)) == Set(issued.map(\.ticket.id)))

            // A check that refuses writes nothing and takes no number.
            struct Full: Error {}
            await #expect(throws: Full.self) {
                _ = try await replicas[0].issue(
                    IssueOrder(Self.issue(.booking, of: store, at: now), holder: nil, check: { throw Full() }),
                    onCommit: { _ in }
                )
            }
            let booking = try await replicas[1].issue(
                IssueOrder(Self.issue(.booking, of: store, at: now), holder: nil, check: {}),
                onCommit: { _ in }
            )
            #expect(booking.ticket.code.description == "B001" && booking.sequence == 21)
        }
    }

    /// Stores' signing keys sealed with a storage key (``KeyVault``): a store registered before one was given is
    /// sealed at the next start, reads the same; a server without the key cannot read them; after a rotation
    /// (new key, old one as previous) the new key alone reads them.
    @Test(arguments: Backend.available) func signingKeysAreSealedAtRest(_ backend: Backend) async throws {
        let directory = HIL.temporaryDirectory("vault")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func vault(_ name: String, previous: [String] = []) throws -> KeyVault {
            for file in [name] + previous where !FileManager.default.fileExists(atPath: "\(directory)/\(file)") {
                let key = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
                try key.write(toFile: "\(directory)/\(file)", atomically: true, encoding: .utf8)
            }
            return try KeyVault(
                keyFile: "\(directory)/\(name)",
                previousKeyFiles: previous.map { "\(directory)/\($0)" }
            )
        }
        let cluster = backend == .postgres ? try PostgresRig() : nil
        defer { cluster?.stop() }
        let url = try cluster?.createDatabase() ?? "\(directory)/clup.sqlite"
        var running: [Task<Void, Never>] = []
        defer { for pool in running { pool.cancel() } }
        func open(_ vault: KeyVault) async throws -> any ServerStorage {
            switch try DatabaseLocation(url) {
            case .sqlite(let path): return try SQLiteStorage(path: path, vault: vault)
            case .postgres(let address):
                var logger = Logger(label: "test")
                logger.logLevel = .error
                let storage = try await PostgresStorage(address, vault: vault, logger: logger)
                running.append(Task { await storage.run() })
                return storage
            }
        }
        let raw = try await open(.none)
        let store = try await raw.register(
            Self.profile(),
            manager: "anna",
            passwordHash: try PasswordHash(password: "correct horse battery"),
            at: Timestamp(milliseconds: 1_000)
        )
        let publicKey = store.signer.publicKey.rawRepresentation
        #expect(try await open(vault("one")).stores().first?.signer.publicKey.rawRepresentation == publicKey)
        // Sealed now: without the key, the key cannot be read.
        await #expect(throws: (any Error).self) { _ = try await open(vault("other")).stores() }
        // Rotation: the new key with the old one as previous, then the new one alone.
        #expect(
            try await open(vault("two", previous: ["one"])).stores().first?.signer.publicKey.rawRepresentation
                == publicKey
        )
        #expect(try await open(vault("two")).stores().first?.signer.publicKey.rawRepresentation == publicKey)
        // A store registered under the vault reads back under it.
        let sealed = try await open(vault("two"))
        let second = try await sealed.register(
            Self.profile("Second Market"),
            manager: "bruno",
            passwordHash: try PasswordHash(password: "correct horse battery"),
            at: Timestamp(milliseconds: 2_000)
        )
        #expect(
            try await sealed.store(second.id)?.signer.publicKey.rawRepresentation
                == second.signer.publicKey.rawRepresentation
        )
        #expect(throws: (any Error).self) { _ = try KeyVault(keyFile: "\(directory)/missing") }
    }

    @Test(arguments: Backend.available) func kiosksSessionsAndKeys(_ backend: Backend) async throws {
        try await Self.withDatabase(backend) { open in
            let storage = try await open()
            let now = Timestamp(milliseconds: 1_700_000_000_000)
            let store = try await storage.register(
                Self.profile(),
                manager: "anna",
                passwordHash: try PasswordHash(password: "correct horse battery"),
                at: now
            ).id
            let credential = try await storage.enroll(device: "entrance", store: store, role: .door, at: now)
            #expect(
                try await storage.device(credential: credential)
                    == KioskGrant(store: store, device: "entrance", role: .door)
            )
            #expect(try await storage.devices(store: store).map(\.role) == [.door])
            // Every store's kiosks (the fleet view), each with its store.
            var other = Self.profile()
            other.name = "Another Market"
            let second = try await storage.register(
                other,
                manager: "bruno",
                passwordHash: try PasswordHash(password: "correct horse battery"),
                at: now
            ).id
            _ = try await storage.enroll(device: "back-door", store: second, role: .door, at: now)
            let fleet = try await storage.devices(store: nil)
            #expect(Set(fleet.map { "\($0.store)/\($0.device)" }) == ["\(store)/entrance", "\(second)/back-door"])
            #expect(try await storage.devices(store: second).map(\.device) == ["back-door"])
            #expect(try await storage.device(credential: "wrong") == nil)
            let key = TicketSigner().publicKey
            try await storage.setKey(key, device: "entrance", store: store)
            #expect(try await storage.keyRing(store: store).map(\.key.rawRepresentation) == [key.rawRepresentation])
            #expect(try await storage.devices(store: store).first?.keyId == KeyID(publicKey: key).description)
            // Enrolling again replaces the credential and the role, and forgets the key.
            let replaced = try await storage.enroll(device: "entrance", store: store, role: .both, at: now)
            #expect(try await storage.device(credential: credential) == nil)
            #expect(try await storage.device(credential: replaced)?.role == .both)
            #expect(try await storage.keyRing(store: store).isEmpty)
            #expect(try await storage.revoke(device: "entrance", store: store))
            #expect(try await storage.device(credential: replaced) == nil)
            #expect(try await !storage.revoke(device: "entrance", store: store))

            let token = try await storage.openSession(username: "anna", expires: now + .seconds(60))
            #expect(try await storage.session(token, at: now)?.store == store)
            #expect(try await storage.session(token, at: now + .seconds(61)) == nil)
            #expect(try await storage.closeSession(token))
            #expect(try await storage.session(token, at: now) == nil)
            #expect(try await !storage.closeSession(token))
            // The system manager's signed sessions, ended by a logout until they would have expired.
            #expect(try await !storage.adminSessionEnded("a.1.mac"))
            try await storage.endAdminSession("a.1.mac", expires: now + .seconds(60))
            try await storage.endAdminSession("a.1.mac", expires: now + .seconds(60))
            #expect(try await storage.adminSessionEnded("a.1.mac"))
            #expect(try await !storage.adminSessionEnded("a.2.mac"))

            // The same secret for every replica and every start.
            let secret = try await storage.serverKey("holder-tokens")
            let again = try await open().serverKey("holder-tokens")
            #expect(secret == again)
            #expect(try await storage.serverKey("console") != secret)
        }
    }
}
