import Foundation
import KioskCore
import Synchronization
import Testing

@testable import CLupServer
@testable import Rigs

extension StorageTests {
    /// A store's changed profile and the capacity change it makes are one transaction: when the event cannot be
    /// written (here a trigger refuses every insert into the log, as a full disk or a crash would end it), the
    /// profile is not written either, on both backends; the next change, once the log takes events again, is.
    /// On PostgreSQL the statement's failure comes after its first row: a transaction that left it unread was
    /// rolled back by its COMMIT without an error, and the write reported as done (found by this test).
    @Test(arguments: Backend.available) func aProfileAndItsCapacityChangeAreWrittenTogether(
        _ backend: Backend
    ) async throws {
        try await Self.withDatabase(backend) { open, sql in
            let storage = try await open()
            let store = try await Self.register(in: storage)
            let now = Timestamp(milliseconds: 1_800_000_000_000)
            func change(to capacity: Int) async throws -> [StoreEvent] {
                var profile = Self.profile()
                profile.capacity = capacity
                let event = StoreEvent.new(.capacityChanged(capacity), store: store, device: "server", at: now)
                let committed = Mutex<[StoreEvent]>([])
                _ = try await storage.setProfile(profile, store: store, appending: [event]) { added in
                    committed.withLock { $0 += added }
                }
                return committed.withLock { $0 }
            }
            func written() async throws -> (capacity: Int?, logged: [StoreEvent.Body]) {
                let replica = try await open()
                return (
                    try await replica.stores().first?.profile.capacity,
                    try await replica.events(store: store, after: 0, limit: 100).map(\.body)
                )
            }

            #expect(try await change(to: 30).map(\.body) == [.capacityChanged(30)], "applied once committed")
            #expect(try await written() == (30, [.capacityChanged(30)]))

            try sql(Self.refuseEventInserts(backend))
            await #expect(throws: (any Error).self) { _ = try await change(to: 40) }
            #expect(try await written() == (30, [.capacityChanged(30)]), "neither the profile nor its event")
            // A checked booking goes the same way (a transaction of its own): refused, not told it was booked.
            let record = try #require(try await storage.store(store))
            let booked = Mutex(false)
            await #expect(throws: (any Error).self) {
                _ = try await storage.issue(
                    IssueOrder(Self.issue(.booking, of: record, at: now), holder: nil, check: {}),
                    onCommit: { _ in booked.withLock { $0 = true } }
                )
            }
            #expect(!booked.withLock { $0 }, "nothing applied in memory")

            try sql("DROP TRIGGER no_events" + (backend == .postgres ? " ON events" : ""))
            #expect(try await change(to: 40).map(\.body) == [.capacityChanged(40)])
            #expect(try await written() == (40, [.capacityChanged(30), .capacityChanged(40)]))
        }
    }

    /// A trigger that fails every insert into the event log.
    static func refuseEventInserts(_ backend: Backend) -> String {
        switch backend {
        case .sqlite: "CREATE TRIGGER no_events BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'disk full'); END"
        case .postgres:
            """
            CREATE FUNCTION no_events() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'disk full'; END $$;
            CREATE TRIGGER no_events BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION no_events();
            """
        }
    }
}
