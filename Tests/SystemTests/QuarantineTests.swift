import CLupServer
import Foundation
import KioskCore
import Logging
import ServiceSupport
@_spi(Seeding) import StationStore
import Testing

@testable import KioskStation
@testable import Rigs

/// A push the server refuses for good (the refusal names one event) used to stay at the head of the outbox, and
/// everything behind it waited for ever. Now the kiosk sets that event aside, with the server's reason, and the
/// rest flows: what a kiosk whose events the third round's checks refuse (a wrong role, a stale expiry) needs.
@Suite(.serialized) struct QuarantineTests {
    /// Syncs `kiosk` until its outbox is empty and something is set aside (20 s at most), then stops: its sync
    /// client, whose status tells what it set aside.
    static func pushUntilSetAside(_ kiosk: OfflineOutbox, config: KioskConfig) async throws -> SyncClient {
        let local = kiosk.store
        let sync = try SyncClient(
            config: config,
            store: local,
            queue: kiosk.replica,
            logger: Logger(label: "quarantine")
        )
        let running = Task { try await sync.run() }
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if try local.outboxCount() == 0, try local.quarantineCount() > 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        running.cancel()
        _ = await running.result
        return sync
    }

    @Test func aRefusedEventInTheMiddleOfTheOutboxIsSetAsideAndTheRestFlows() async throws {
        let server = try await ServerRig()
        let store = try await server.registerStore()
        let credential = try await server.enroll("door-1", store: store, role: .door)
        let directory = HIL.temporaryDirectory("quarantine")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var config = KioskConfig(store: .init(id: store))
        config.syncing(with: server, store: store, device: "door-1", credential: credential, capacity: 2, pullWait: 1)
        // An outbox of 100 written while offline: 49 refused scans, a capacity change (the manager's alone: refused
        // for good), 50 more.
        let now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        var outbox = (0..<100).map {
            OfflineOutbox.refusedScan(store: store, door: "door-1", at: now + .milliseconds($0))
        }
        outbox[49] = .new(.capacityChanged(1000), store: store, device: "door-1", at: now + .milliseconds(49))
        let kiosk = try OfflineOutbox(outbox, in: directory, capacity: 2)
        let (local, replica) = (kiosk.store, kiosk.replica)
        #expect(replica.snapshot.capacity == 1000, "the kiosk's own view before the server answers")
        let sync = try await Self.pushUntilSetAside(kiosk, config: config)
        #expect(try local.outboxCount() == 0)
        let set = try local.quarantined()
        #expect(set.count == 1 && set.first?.event.id == outbox[49].id)
        #expect(set.first?.reason.contains("capacity is the store manager's") == true, "\(set.first?.reason ?? "")")
        #expect(sync.status.quarantined == 1 && sync.status.lastRefusal?.contains("events[") == true)
        #expect(replica.snapshot.capacity == 2, "the refused change left the kiosk's queue")
        let log = try await server.app.database.events(store: store, after: 0, limit: 1000)
        #expect(log.filter { $0.kind == "scanRefused" }.count == 99)
        #expect(!log.contains { $0.kind == "capacityChanged" && $0.device == "door-1" })
        #expect(server.queue(store)?.capacity == 2)

        // A restart still knows what was set aside.
        let again = try SyncClient(config: config, store: local, queue: replica, logger: Logger(label: "quarantine"))
        #expect(again.status.quarantined == 1)
        await server.stop()
    }

    /// A door's staff count while a kiosk of its store speaks sync protocol 1 (which would freeze on it): the
    /// server refuses that event by name, the door sets it aside with the reason, and its outbox goes on.
    @Test func aStaffCountAnOlderKioskWouldFreezeOnIsSetAsideAndTheRestFlows() async throws {
        let server = try await ServerRig()
        let store = try await server.registerStore()
        let credential = try await server.enroll("door-1", store: store, role: .door)
        let old = try await server.enroll("old-printer", store: store, role: .printer)
        #expect(try await server.call("GET", "/v1/stores/\(store.uuidString)/events?after=0", token: old).status == 200)
        let directory = HIL.temporaryDirectory("quarantine-staff")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var config = KioskConfig(store: .init(id: store))
        config.syncing(with: server, store: store, device: "door-1", credential: credential, capacity: 2, pullWait: 1)
        let now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        let outbox = [
            OfflineOutbox.refusedScan(store: store, door: "door-1", at: now),
            .new(.countCorrected(inside: 2, by: "door-1"), store: store, device: "door-1", at: now + .milliseconds(1)),
            OfflineOutbox.refusedScan(store: store, door: "door-1", at: now + .milliseconds(2)),
        ]
        let kiosk = try OfflineOutbox(outbox, in: directory, capacity: 2)
        let (local, replica) = (kiosk.store, kiosk.replica)
        #expect(replica.snapshot.inside == 2, "the door's own count before the server answers")
        _ = try await Self.pushUntilSetAside(kiosk, config: config)
        #expect(try local.outboxCount() == 0)
        let set = try local.quarantined()
        #expect(set.count == 1 && set.first?.event.id == outbox[1].id)
        #expect(set.first?.reason.contains("old-printer") == true, "\(set.first?.reason ?? "")")
        #expect(replica.snapshot.inside == 0, "the refused count left the door's queue")
        let log = try await server.app.database.events(store: store, after: 0, limit: 1000)
        #expect(log.filter { $0.kind == "scanRefused" }.count == 2 && !log.contains { $0.kind == "countCorrected" })
        await server.stop()
    }
}
