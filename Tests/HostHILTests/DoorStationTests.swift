import DeviceEmulators
import Drivers
import Foundation
import KioskCore
import Testing

@testable import KioskStation
@testable import Rigs

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The door role end to end: a printed ticket scanned on a serial scanner (emulated on a pty) is admitted,
/// refusals and garbage are logged, the exit button frees the place.
@Suite(.serialized) struct DoorStationTests {
    @Test(.enabled(if: HIL.needs("zbarimg"), "zbarimg not installed (apt-get install zbar-tools; make test does it)"))
    func scanAdmitRefuseAndExit() async throws {
        let scanner = try SerialScannerEmulator(suffix: .crlf, aimPrefix: "]Q1")
        defer { scanner.close() }
        let rig = try StationRig(profile: "custom-vkp80iii") {
            $0.store.capacity = 1
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)?baud=9600"
            $0.door.suffix = .crlf
        }
        do {
            for n in 1...2 {
                try await rig.requireTickets(n)
                await rig.customerTakes()
            }
            let tickets = try await rig.requireTickets(3)
            let payloads = try HIL.run(
                "zbarimg",
                ["--quiet", "--raw", "-Sdisable", "-Sqrcode.enable"] + tickets.prefix(2).compactMap(\.pngPath)
            ).output.split(separator: "\n").map(String.init)
            try #require(payloads.count == 2)
            let door = try #require(rig.kiosk.door)
            #expect(await rig.wait { door.status.state == "ready" } != nil)

            func scan(_ payload: String) async throws -> DoorStationStatus.Decision? {
                let before = door.status.admitted + door.status.refused
                try scanner.scan(payload)
                _ = await rig.wait { door.status.admitted + door.status.refused > before }
                return door.status.last
            }
            #expect(try await scan(payloads[1])?.reason == "not_your_turn")  // A001 is ahead, one place free
            #expect(try await scan(payloads[0])?.reason == "admit")
            #expect(door.status.last?.code == "A001")
            #expect(try await scan(payloads[0])?.reason == "already_used")
            #expect(try await scan(payloads[1])?.reason == "store_full")
            try scanner.send(Array("garbage\u{1}\u{2}".utf8) + [0x0D, 0x0A])
            #expect(await rig.wait { door.status.last?.reason == "unreadable" } != nil)

            // The exit button frees the place; A002 is then admitted.
            let port = try #require(rig.kiosk.httpPort.wait())
            func exit(_ headers: [String: String]) async throws -> Int? {
                var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/door/exit")!)
                request.httpMethod = "POST"
                for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
                let (_, response) = try await URLSession.shared.data(for: request)
                return (response as? HTTPURLResponse)?.statusCode
            }
            // Another site's page in the kiosk's browser cannot press the button.
            #expect(try await exit(["Origin": "http://evil.example"]) == 403)
            #expect(try await exit(["Sec-Fetch-Site": "cross-site"]) == 403)
            #expect(rig.kiosk.queue.snapshot.inside == 1)
            #expect(try await exit(["Origin": "http://127.0.0.1:\(port)", "Sec-Fetch-Site": "same-origin"]) == 202)
            #expect(try await scan(payloads[1])?.reason == "admit")

            let kinds = try rig.kiosk.store.events().map(\.kind)
            #expect(kinds.filter { $0 == "ticketAdmitted" }.count == 2)
            #expect(kinds.filter { $0 == "scanRefused" }.count == 4)
            #expect(kinds.filter { $0 == "customerExited" }.count == 1)
            #expect(rig.kiosk.queue.snapshot.inside == 1)
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }
}

extension DoorStationTests {
    /// The scanner is pulled out and plugged back in: the door says so at once and reads again after.
    @Test func scannerUnplugAndReplug() async throws {
        let link = HIL.temporaryDirectory("scanner") + "/scanner"
        var scanner: SerialScannerEmulator? = try SerialScannerEmulator(suffix: .cr, linkPath: link)
        let rig = try StationRig(profile: "custom-vkp80iii") {
            $0.door.enabled = true
            $0.door.scanner = "serial://\(link)"
        }
        do {
            let door = try #require(rig.kiosk.door)
            #expect(await rig.wait { door.status.state == "ready" } != nil)
            scanner?.close()
            scanner = nil
            let noticed = await rig.wait(.seconds(3)) { door.status.state == "disconnected" }
            #expect(try #require(noticed) <= .seconds(1))
            scanner = try SerialScannerEmulator(suffix: .cr, linkPath: link)
            #expect(await rig.wait(.seconds(5)) { door.status.state == "ready" } != nil)
            try scanner?.scan("NOT A TICKET")
            #expect(await rig.wait { door.status.last?.reason == "unreadable" } != nil)
        } catch {
            scanner?.close()
            await rig.stop()
            throw error
        }
        scanner?.close()
        await rig.stop()
    }
}
