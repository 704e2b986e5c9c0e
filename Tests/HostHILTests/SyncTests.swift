import CLupServer
import DeviceEmulators
import Foundation
import KioskCore
import Testing

@testable import KioskStation

/// Kiosks and the real clup-server on loopback: paper tickets torn off at one kiosk reach the server and a
/// door kiosk, which verifies them with the key ring the server handed out and admits them in order; in the
/// end the server's queue and both kiosks' queues are the same fold of the same log.
@Suite(.serialized) struct SyncTests {
    @Test(.enabled(if: HIL.needs("zbarimg"), "zbarimg not installed (apt-get install zbar-tools; make test does it)"))
    func paperAndAppTicketsShareOneQueueAndOneDoor() async throws {
        let server = try await ServerRig()
        let storeID = try await server.registerStore()
        let printerCredential = try await server.enroll("entrance-printer", store: storeID)
        let doorCredential = try await server.enroll("entrance-door", store: storeID)
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        func synced(_ config: inout KioskConfig, device: String, credential: String) {
            config.store.id = storeID
            config.store.capacity = 2
            config.device.id = device
            config.sync.server = server.url
            config.sync.credential = credential
            config.sync.pullWaitSeconds = 5
        }
        let printer = try StationRig(profile: "custom-vkp80iii") {
            synced(&$0, device: "entrance-printer", credential: printerCredential)
        }
        let door = try StationRig(profile: "custom-vkp80iii") {
            synced(&$0, device: "entrance-door", credential: doorCredential)
            $0.printer.enabled = false
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)"
        }
        do {
            // A001 torn off, then an app ticket (V001), then A002: one queue by join time.
            try await printer.requireTickets(1)
            await printer.customerTakes()
            try await printer.requireTickets(2)
            #expect(await printer.wait(.seconds(10)) { server.queue(storeID)?.waiting.count == 1 } != nil)
            let app = try await server.call("POST", "/v1/stores/\(storeID.uuidString)/tickets", token: nil)
            #expect(app.status == 201)
            let appTicket = try #require((app.body["ticket"] as? [String: Any])?["id"] as? String)
            let appQR = try #require(app.body["qr"] as? String)
            #expect(app.body["peopleAhead"] as? Int == 1)
            #expect(await printer.wait(.seconds(10)) { printer.kiosk.queue.snapshot.waiting.count == 2 } != nil)
            await printer.customerTakes()
            let tickets = try await printer.requireTickets(3)
            // The ticket now waiting in the printer counts the app ticket among those ahead.
            #expect(tickets[2].text.contains { $0.contains("3 people ahead") }, "\(tickets[2].text)")
            #expect(await printer.wait(.seconds(10)) { server.queue(storeID)?.waiting.count == 3 } != nil)
            #expect(server.queue(storeID)?.waiting.map(\.code.description) == ["A001", "V001", "A002"])

            let doorStation = try #require(door.kiosk.door)
            // The door learns every ticket and the keys (its own, the printer's, the server's).
            #expect(await door.wait(.seconds(10)) { door.kiosk.queue.snapshot.waiting.count == 3 } != nil)
            #expect(door.kiosk.queue.snapshot.waiting.map(\.code.description) == ["A001", "V001", "A002"])
            #expect(await door.wait(.seconds(10)) { doorStation.keyRing.count == 3 } != nil)
            #expect(await door.wait { doorStation.status.state == "ready" } != nil)

            let pngs = try tickets.prefix(2).map { try #require($0.pngPath) }
            let paper = try pngs.map { try #require(try HIL.decodeQR(png: $0).first) }
            func scan(_ payload: String) async throws -> String? {
                let before = doorStation.status.admitted + doorStation.status.refused
                try scanner.scan(payload)
                _ = await door.wait { doorStation.status.admitted + doorStation.status.refused > before }
                return doorStation.status.last.map { "\($0.reason) \($0.code ?? "-")" }
            }
            // Two places: A001 and V001 are called; A002 waits behind A001.
            #expect(try await scan(appQR) == "admit V001")
            #expect(try await scan(paper[1]) == "not_your_turn A002")
            #expect(try await scan(paper[0]) == "admit A001")
            #expect(try await scan(paper[1]) == "store_full A002")
            #expect(await door.wait(.seconds(10)) { server.queue(storeID)?.inside == 2 } != nil)
            #expect(await printer.wait(.seconds(10)) { printer.kiosk.queue.snapshot.inside == 2 } != nil)
            let status = try await server.call("GET", "/v1/tickets/\(appTicket)", token: nil)
            #expect(status.body["stage"] as? String == "admitted")

            // Everything confirmed: the same log folded in the server's order everywhere.
            for rig in [printer, door] {
                #expect(await rig.wait(.seconds(10)) { (try? rig.kiosk.store.outboxCount()) == 0 } != nil)
            }
            let last = server.app.logs.store(storeID)?.lastSequence ?? -1
            for rig in [printer, door] {
                #expect(await rig.wait(.seconds(10)) { rig.kiosk.sync?.status.lastSequence == last } != nil)
                #expect(rig.kiosk.queue.confirmedSnapshot == server.queue(storeID))
                #expect(rig.kiosk.queue.snapshot == server.queue(storeID))
                #expect(rig.kiosk.sync?.status.state == "online")
            }
        } catch {
            await door.stop()
            await printer.stop()
            await server.stop()
            throw error
        }
        await door.stop()
        await printer.stop()
        await server.stop()
    }
}
