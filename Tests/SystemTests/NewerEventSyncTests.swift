import CLupServer
import Foundation
import KioskCore
import Logging
import ServiceSupport
@_spi(Seeding) import StationStore
import Testing

@testable import KioskStation
@testable import Rigs

/// A chain upgrades its server first and its kiosks over days: an event type today's kioskd does not know used
/// to fail the page's decoding, and the kiosk's pull retried that page for ever, its line frozen. Now today's
/// kiosk keeps the newer event as it came, goes on pulling past it, and says it wants an update; and a kiosk's
/// own event of a type the server does not know is refused for good and set aside, not retried.
@Suite(.serialized) struct NewerEventSyncTests {
    @Test func aKioskPullsPastAnEventOfANewerVersionAndSaysSo() async throws {
        let server = try await ServerRig()
        let store = try await server.registerStore()
        let credential = try await server.enroll("door-1", store: store, role: .door)
        // A newer replica of the chain wrote an event of a type this version does not know into the shared log.
        let fields = try JSONDecoder().decode(
            [String: JSONValue].self,
            from: Data(#"{"reason":"restock","until":1795000600000,"staff":["ana"]}"#.utf8)
        )
        let now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        let newer = StoreEvent.new(
            .unknown(type: "lineStopped", fields: fields),
            store: store,
            device: "server",
            at: now
        )
        // And a capacity change it knows, with a field it does not (a newer version's reason for it).
        var known = StoreEvent.new(.capacityChanged(2), store: store, device: "server", at: now)
        known.newerFields = ["reason": .string("restock")]
        _ = try await server.app.database.append([newer, known], store: store, onCommit: { _ in })
        // Behind it, an app ticket the server issues as usual.
        let taken = try await server.takeAppTicket(store: store, from: 1)
        #expect(taken.status == 201, "\(taken)")

        let directory = HIL.temporaryDirectory("newer-event")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var config = KioskConfig(store: .init(id: store))
        config.syncing(with: server, store: store, device: "door-1", credential: credential, capacity: 2, pullWait: 1)
        // Its own event of a type the server does not know (as a newer kioskd's would be, before the server's
        // upgrade), between two it knows.
        let mine = [
            OfflineOutbox.refusedScan(store: store, door: "door-1", at: now),
            StoreEvent.new(
                .unknown(type: "secondCall", fields: [:]),
                store: store,
                device: "door-1",
                at: now + .milliseconds(1)
            ),
            OfflineOutbox.refusedScan(store: store, door: "door-1", at: now + .milliseconds(2)),
            {
                var event = OfflineOutbox.refusedScan(store: store, door: "door-1", at: now + .milliseconds(3))
                event.newerFields = ["camera": .string("left")]
                return event
            }(),
        ]
        let kiosk = try OfflineOutbox(mine, in: directory, capacity: 2)
        let (local, replica) = (kiosk.store, kiosk.replica)
        let sync = try SyncClient(config: config, store: local, queue: replica, logger: Logger(label: "newer"))
        let running = Task { try await sync.run() }
        defer { running.cancel() }

        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if replica.snapshot.waitingCount == 1, sync.status.newerEvents >= 2, try local.outboxCount() == 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(replica.snapshot.waitingCount == 1, "the app ticket behind the newer event reached the kiosk's line")
        #expect(sync.status.newerEvents == 2, "the server's newer event and newer field, not the kiosk's own")
        let kept = try local.events().first { $0.id == newer.id }
        #expect(kept?.body == newer.body, "kept as it came")
        let keptKnown = try local.events().first { $0.id == known.id }
        #expect(keptKnown?.body == .capacityChanged(2) && keptKnown?.newerFields == known.newerFields, "and its field")
        #expect(try local.outboxCount() == 0)
        let set = try local.quarantined()
        let reasons = Dictionary(uniqueKeysWithValues: set.map { ($0.event.id, $0.reason) })
        #expect(Set(reasons.keys) == [mine[1].id, mine[3].id], "\(reasons)")
        #expect(reasons[mine[1].id]?.contains("'secondCall' is unknown to this server") == true, "\(reasons)")
        #expect(reasons[mine[3].id]?.contains("field 'camera' of scanRefused is unknown to this server") == true)
        let stored = try await server.app.database.events(store: store, after: 0, limit: 1000)
        #expect(stored.first { $0.id == known.id }?.newerFields == known.newerFields, "the server's store keeps it")
        let log = try await server.app.database.events(store: store, after: 0, limit: 1000)
        #expect(log.filter { $0.device == "door-1" && $0.kind == "scanRefused" }.count == 2)

        // Restarted on the same database, the kiosk still says it.
        let again = try SyncClient(config: config, store: local, queue: replica, logger: Logger(label: "newer"))
        #expect(again.status.newerEvents == 2)
        running.cancel()
        _ = await running.result
        await server.stop()
    }
}
