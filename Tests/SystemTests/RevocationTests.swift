import CLupServer
import DeviceEmulators
import Foundation
import KioskCore
import ServiceSupport
import Testing

@testable import KioskStation
@testable import Rigs

/// A stolen or retired kiosk is revoked by its store's manager: its credential stops working at once (its
/// status says to enroll again), its key leaves the doors' key rings with their next page of the log, and the
/// door refuses the tickets it signed as forged. Keys trusted by hand stay.
@Suite(.serialized) struct RevocationTests {
    @Test(.enabled(if: HIL.needs("zbarimg"), "zbarimg not installed (apt-get install zbar-tools; make test does it)"))
    func aRevokedKioskIsLockedOutAndItsKeyLeavesTheDoors() async throws {
        let server = try await ServerRig()
        let storeID = try await server.registerStore(manager: "anna")
        let other = try await server.registerStore(["name": "Other Market"], manager: "bruno")
        let printerCredential = try await server.enroll("stolen-printer", store: storeID)
        let doorCredential = try await server.enroll("entrance-door", store: storeID)
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        let printer = try StationRig(profile: "custom-vkp80iii") {
            $0.syncing(
                with: server,
                store: storeID,
                device: "stolen-printer",
                credential: printerCredential,
                capacity: 5,
                pullWait: 2
            )
        }
        let door = try StationRig(profile: "custom-vkp80iii") {
            $0.syncing(
                with: server,
                store: storeID,
                device: "entrance-door",
                credential: doorCredential,
                capacity: 5,
                pullWait: 2
            )
            $0.printer.enabled = false
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)"
        }
        do {
            let doorStation = try #require(door.kiosk.door)
            // A key trusted by hand at the door (a kiosk of a neighbouring system, say): not the server's to take.
            let handTrusted = TicketSigner()
            try door.kiosk.store.trust(handTrusted.publicKey, device: "by-hand", at: WallClock.system.now())
            try doorStation.reloadKeyRing()
            let tickets = try await printer.requireTickets(1)
            #expect(await door.wait(.seconds(10)) { doorStation.keyRing.count == 4 } != nil)
            let png = try #require(tickets[0].pngPath)
            let code = try #require(try HIL.decodeQR(png: png).first)

            // The manager sees the store's kiosks and their keys; another store's manager sees nothing of them.
            let login = try await server.call(
                "POST",
                "/v1/login",
                token: nil,
                json: ["username": "anna", "password": "correct horse battery"]
            )
            let token = try #require(login.body["token"] as? String)
            let list = try await server.call("GET", "/v1/stores/\(storeID.uuidString)/devices", token: token)
            let devices = try #require(list.body["devices"] as? [[String: Any]])
            #expect(list.status == 200)
            #expect(devices.compactMap { $0["device"] as? String } == ["entrance-door", "stolen-printer"])
            let printerKey = try printer.kiosk.store.signingKey().keyID.description
            #expect(devices.first { $0["device"] as? String == "stolen-printer" }?["keyId"] as? String == printerKey)
            let bruno = try await server.call(
                "POST",
                "/v1/login",
                token: nil,
                json: ["username": "bruno", "password": "correct horse battery"]
            )
            let brunoToken = try #require(bruno.body["token"] as? String)
            let path = "/v1/stores/\(storeID.uuidString)/devices/stolen-printer"
            #expect(try await server.call("DELETE", path, token: brunoToken).status == 403)
            #expect(try await server.call("DELETE", path, token: nil).status == 401)
            #expect(try await server.call("GET", "/v1/stores/\(other.uuidString)/devices", token: token).status == 403)

            #expect(try await server.call("DELETE", path, token: token).status == 204)
            #expect(try await server.call("DELETE", path, token: token).status == 404)

            // The stolen box is locked out: what it prints now reaches nobody, and its status says why.
            await printer.customerTakes()
            try await printer.requireTickets(2)
            let printerSync = try #require(printer.kiosk.sync)
            #expect(await printer.wait(.seconds(10)) { printerSync.status.error?.contains("enroll") == true } != nil)
            // A001's take never reached the server.
            #expect(server.queue(storeID)?.waiting.isEmpty == true)

            // The door drops its key with the next page of the log; the hand-trusted key and its own stay.
            #expect(await door.wait(.seconds(10)) { doorStation.keyRing.count == 3 } != nil)
            let left = Set(try door.kiosk.store.trustedKeys().map(\.device))
            #expect(left == [ServerIssue.device, "by-hand"])
            let decision = try await door.scan(code, on: scanner)
            #expect(decision == "forged -", "\(decision ?? "none")")
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
