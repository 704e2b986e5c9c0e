import CLupServer
import Foundation
import KioskCore
import Logging
import ServiceSupport
@_spi(Seeding) import StationStore
import SyncWire
import Testing

@testable import KioskStation
@testable import Rigs

/// Kiosks across versions: every kiosk request says its sync protocol (`CLup-Sync-Protocol`, none: 1), and a
/// server told to serve only newer kiosks (`--oldest-kiosk-protocol 2`, what an operator sets before a server
/// that writes new event types goes live) answers an older one 426 with what to do. The old kiosk keeps its
/// outbox (nothing of it was refused), says so in its status and on its display, and asks again a minute later.
@Suite(.serialized) struct SyncProtocolTests {
    @Test func aServerAnswersAKioskOlderThanItServes426() async throws {
        let server = try await ServerRig(oldestKioskProtocol: 2)
        let store = try await server.registerStore()
        let credential = try await server.enroll("door-1", store: store, role: .door)
        let path = "/v1/stores/\(store.uuidString)/events?after=0"

        let old = try await server.call("GET", path, token: credential)
        #expect(old.status == 426, "a kioskd from before the header: \(old.body)")
        #expect(old.body["reason"] as? String == "upgrade_kioskd")
        let message = old.body["error"] as? String ?? ""
        #expect(message.contains("sync protocol 1") && message.contains("update kioskd"), "\(message)")

        let said = try await server.call("GET", path, token: credential, headers: [SyncProtocol.header: "1"])
        #expect(said.status == 426)
        let today = try await server.call("GET", path, token: credential, headers: [SyncProtocol.header: "2"])
        #expect(today.status == 200 && today.body["syncProtocol"] as? Int == SyncProtocol.current, "\(today.body)")
        let newer = try await server.call("GET", path, token: credential, headers: [SyncProtocol.header: "7"])
        #expect(newer.status == 200, "a newer kiosk is served (its new event types are refused one by one)")
        for garbage in ["two", "0", "02", "-1", "99999", "2, 3", "", "+2"] {
            let bad = try await server.call("GET", path, token: credential, headers: [SyncProtocol.header: garbage])
            #expect(bad.status == 400 && bad.body["field"] as? String == SyncProtocol.header, "'\(garbage)'")
        }
        // Only an enrolled kiosk learns the policy: a stranger is 401 whatever protocol it says.
        let stranger = try await server.call("GET", path, token: "not-a-credential")
        #expect(stranger.status == 401)

        // The default policy serves every kiosk there is (1, from before the header, and today's 2).
        let serving = try await ServerRig()
        let other = try await serving.registerStore()
        let door = try await serving.enroll("door-1", store: other, role: .door)
        let served = try await serving.call("GET", "/v1/stores/\(other.uuidString)/events", token: door)
        #expect(served.status == 200, "\(served.body)")
        await serving.stop()
        await server.stop()
    }

    @Test func anOldKioskKeepsItsOutboxAndAsksForAnUpdate() async throws {
        let server = try await ServerRig(oldestKioskProtocol: 2)
        let store = try await server.registerStore()
        let credential = try await server.enroll("door-1", store: store, role: .door)
        let directory = HIL.temporaryDirectory("sync-protocol")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var config = KioskConfig(store: .init(id: store))
        config.syncing(with: server, store: store, device: "door-1", credential: credential, capacity: 2, pullWait: 1)
        let now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        let outbox = (0..<3).map {
            OfflineOutbox.refusedScan(store: store, door: "door-1", at: now + .milliseconds($0))
        }
        let kiosk = try OfflineOutbox(outbox, in: directory, capacity: 2)
        let (local, replica) = (kiosk.store, kiosk.replica)

        // A kioskd of protocol 1.
        let oldKiosk = try SyncClient(
            config: config,
            store: local,
            queue: replica,
            logger: Logger(label: "old-kiosk"),
            syncProtocol: 1
        )
        let running = Task { try await oldKiosk.run() }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, oldKiosk.status.upgradeRequired == nil {
            try await Task.sleep(for: .milliseconds(50))
        }
        let status = oldKiosk.status
        #expect(status.upgradeRequired?.contains("update kioskd") == true, "\(status)")
        #expect(status.state == "offline" && status.quarantined == 0)
        #expect(try local.outboxCount() == 3, "nothing of the outbox was refused: it waits for the update")
        let log = try await server.app.database.events(store: store, after: 0, limit: 100)
        #expect(!log.contains { $0.device == "door-1" })
        running.cancel()
        _ = await running.result

        // The same box updated: today's protocol, served; the outbox flows and the notice goes.
        let updated = try SyncClient(config: config, store: local, queue: replica, logger: Logger(label: "updated"))
        let again = Task { try await updated.run() }
        let until = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < until, try local.outboxCount() > 0 || updated.status.state != "online" {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try local.outboxCount() == 0)
        #expect(updated.status.upgradeRequired == nil && updated.status.state == "online")
        again.cancel()
        _ = await again.result
        await server.stop()
    }
}
