import Crypto
import Foundation
import KioskCore
import ServiceSupport
import Testing

@testable import CLupServer

/// clup-server's services alone: the rules a shopper's booking and cancel and a manager's login pass, called as
/// the routes call them, on a SQLite database with a clock set to Wednesday 2 December 2026, 10:00 in Rome (the
/// store is open 08:00–20:00 every day).
@Suite final class ServicesTests {
    let directory: String
    let database: SQLiteStorage
    let logs: StoreQueues
    let store: StoreID
    let now = Timestamp(milliseconds: 1_796_202_000_000)

    init() async throws {
        directory = NSTemporaryDirectory() + "services-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        database = try SQLiteStorage(path: "\(directory)/clup.sqlite", clock: .manual(.init(now)))
        store = try database.register(
            Self.profile,
            manager: "anna",
            passwordHash: try PasswordHash(password: "correct horse battery"),
            at: now
        ).id
        logs = try await StoreQueues(database: database)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    static let profile = StoreProfile(
        name: "Corner Market",
        address: "1 Main Street",
        location: .init(latitude: 45.46, longitude: 9.19),
        capacity: 20,
        openingHours: Array(repeating: StoreProfile.Hours(open: "08:00", close: "20:00"), count: 7),
        timeZone: "Europe/Rome",
        averageVisitMinutes: 20,
        slotMinutes: 15,
        slotSize: 4
    )

    var desk: ShopperDesk {
        let gate = TicketGate(
            limits: PublicLimits(),
            tokens: HolderTokens(key: SymmetricKey(size: .bits256)),
            holders: Holders(maxBookings: 3, owned: []),
            workKey: SymmetricKey(size: .bits256),
            isLive: { _ in false }
        )
        return ShopperDesk(logs: logs, gate: gate, statusURL: "HTTPS://CLUP.EXAMPLE/T/")
    }

    /// What `body` was refused (nil: it was not refused).
    func refusal(_ body: () async throws -> some Any) async -> Refusal? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error as? Refusal ?? Refusal(.failed, "\(error)")
        }
    }

    /// A booking's time is checked before anything is counted or issued: a slot gone, one past the horizon,
    /// a start between slots and a stay out of range are each refused naming their field.
    @Test func aBookingOutsideItsRulesIsRefusedByItsField() async throws {
        let shopper = ShopperDesk.Shopper(token: nil, work: nil, address: "192.0.2.1")
        let tomorrowAtTen = now.milliseconds + 86_400_000
        let cases: [(ShopperDesk.Booking, String)] = [
            (.init(slotStart: now.milliseconds - 60_000), "slotStart"),
            (.init(slotStart: now.milliseconds + 400 * 86_400_000), "slotStart"),
            (.init(slotStart: Int64.max), "slotStart"),
            (.init(slotStart: tomorrowAtTen + 7 * 60_000), "slotStart"),
            (.init(slotStart: tomorrowAtTen, expectedVisitMinutes: 241), "expectedVisitMinutes"),
        ]
        for (booking, field) in cases {
            let refused = await refusal { try await desk.book(booking, at: store, for: shopper) }
            #expect(refused?.code == .invalid && refused?.field == field, "\(booking): \(String(describing: refused))")
        }
        #expect(try await database.events(store: store, after: 0).allSatisfy { $0.kind == "dayStarted" })
    }

    /// A cancel follows the ticket's stage: a waiting ticket leaves the line once (a second cancel answers the
    /// same, and writes nothing), a used one cannot be cancelled, an unknown one is not found.
    @Test func aCancelFollowsTheTicketsStage() async throws {
        let issued = try await logs.issue(kind: .app, store: store, statusURL: "HTTPS://CLUP.EXAMPLE/T/", at: now)
        let id = issued.ticket.id
        #expect(try await desk.cancel(id).stage == "cancelled")
        let written = try await database.events(store: store, after: 0).count
        #expect(try await desk.cancel(id).stage == "cancelled")
        #expect(try await database.events(store: store, after: 0).count == written)

        let used = try await logs.issue(kind: .app, store: store, statusURL: "HTTPS://CLUP.EXAMPLE/T/", at: now)
        let call = StoreEvent.new(
            .ticketAdmitted(used.ticket.id, door: "door-1"),
            store: store,
            device: "door-1",
            at: now
        )
        _ = try await logs.append([call], store: store)
        #expect(await refusal { try await desk.cancel(used.ticket.id) }?.code == .conflict)
        #expect(await refusal { try await desk.cancel(UUID()) }?.code == .notFound)
    }

    /// A manager's login opens a session that a logout ends once; a wrong password, an unknown user and a
    /// 2,000-byte user name are refused alike, without saying which part was wrong.
    @Test func aLoginOpensASessionThatALogoutEnds() async throws {
        let accounts = Accounts(
            database: database,
            throttle: LoginThrottle(),
            devices: KnownDevices(key: SymmetricKey(size: .bits256)),
            sessionLifetime: .seconds(3600),
            passwords: PasswordChecks()
        )
        let session = try await accounts.login(
            .init(username: "anna", password: "correct horse battery"),
            address: "192.0.2.1"
        )
        #expect(session.store == store && session.expiresAt == (now + .seconds(3600)).milliseconds)
        try await accounts.logout(session.token)
        #expect(await refusal { try await accounts.logout(session.token) }?.code == .unauthorized)
        for (username, password) in [
            ("anna", "wrong horse"), ("bruno", "correct horse battery"), (String(repeating: "a", count: 2_000), "x"),
        ] {
            let refused = await refusal {
                try await accounts.login(.init(username: username, password: password), address: "192.0.2.2")
            }
            #expect(refused?.code == .unauthorized && refused?.message == "wrong user name or password")
        }
    }
}
