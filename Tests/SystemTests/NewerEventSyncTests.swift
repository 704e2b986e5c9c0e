import CLupServer
import Foundation
import KioskCore
import Logging
import ServiceSupport
import Testing

@_spi(Seeding) @testable import KioskStation
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
        _ = try await server.app.database.append([newer], store: store, onCommit: { _ in })
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
        ]
        let kiosk = try OfflineOutbox(mine, in: directory, capacity: 2)
        let (local, replica) = (kiosk.store, kiosk.replica)
        let sync = try SyncClient(config: config, store: local, queue: replica, logger: Logger(label: "newer"))
        let running = Task { try await sync.run() }
        defer { running.cancel() }

        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if replica.snapshot.waitingCount == 1, sync.status.newerEvents >= 1, try local.outboxCount() == 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(replica.snapshot.waitingCount == 1, "the app ticket behind the newer event reached the kiosk's line")
        #expect(sync.status.newerEvents == 1, "the server's newer event, not the kiosk's own refused one")
        let kept = try local.events().first { $0.id == newer.id }
        #expect(kept?.body == newer.body, "kept as it came")
        #expect(try local.outboxCount() == 0)
        let set = try local.quarantined()
        #expect(set.count == 1 && set.first?.event.id == mine[1].id)
        #expect(
            set.first?.reason.contains("'secondCall' is unknown to this server") == true,
            "\(set.first?.reason ?? "")"
        )
        let log = try await server.app.database.events(store: store, after: 0, limit: 1000)
        #expect(log.filter { $0.device == "door-1" && $0.kind == "scanRefused" }.count == 2)

        // Restarted on the same database, the kiosk still says it.
        let again = try SyncClient(config: config, store: local, queue: replica, logger: Logger(label: "newer"))
        #expect(again.status.newerEvents == 1)
        running.cancel()
        _ = await running.result
        await server.stop()
    }
}
