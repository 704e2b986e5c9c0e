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
    func paperTicketsReachTheServerAndTheDoor() async throws {
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
            for n in 1...3 {
                try await printer.requireTickets(n)
                await printer.customerTakes()
            }
            let tickets = try await printer.requireTickets(4)
            #expect(await printer.wait(.seconds(10)) { server.queue(storeID)?.waiting.count == 3 } != nil)
            let doorStation = try #require(door.kiosk.door)
            // The door learns the printer's tickets and its key (own, printer's, the server's).
            #expect(await door.wait(.seconds(10)) { door.kiosk.queue.snapshot.waiting.count == 3 } != nil)
            #expect(await door.wait(.seconds(10)) { doorStation.keyRing.count == 3 } != nil)
            #expect(await door.wait { doorStation.status.state == "ready" } != nil)

            let png = try #require(tickets[0].pngPath)
            let first = try #require(try HIL.decodeQR(png: png).first)
            try scanner.scan(first)
            #expect(await door.wait { doorStation.status.last?.reason == "admit" } != nil)
            #expect(doorStation.status.last?.code == "A001")
            #expect(await door.wait(.seconds(10)) { server.queue(storeID)?.inside == 1 } != nil)
            #expect(await printer.wait(.seconds(10)) { printer.kiosk.queue.snapshot.inside == 1 } != nil)

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
