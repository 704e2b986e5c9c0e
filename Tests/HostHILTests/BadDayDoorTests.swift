import DeviceEmulators
import Drivers
import Foundation
import KioskCore
import Testing

@testable import KioskStation
@testable import Rigs

/// A day at the door: a thousand scans into a serial scanner on a pty, at random moments, some arriving in
/// pieces (a slow USB-serial adapter, a scanner that sends in chunks). Every scan gets a decision, and the port is
/// never taken for gone.
@Suite(.serialized) struct BadDayDoorTests {
    @Test func aThousandScansAtRandomMomentsAllDecided() async throws {
        let count = Int(ProcessInfo.processInfo.environment["CLUP_BADDAY_SCANS"] ?? "") ?? 1000
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        let rig = try StationRig(profile: "custom-vkp80iii") {
            $0.printer.enabled = false
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)"
        }
        do {
            let door = try #require(rig.kiosk.door)
            #expect(await rig.wait { door.status.state == "ready" } != nil)
            var split = 0
            for n in 1...count {
                // A code-shaped text that is not a ticket: each one is a decision ("not a valid ticket").
                let bytes = Array("HTTPS://CLUP.EXAMPLE/T/NOTATICKET\(n)".utf8) + [0x0D]
                if n % 4 == 0 {
                    // In two or three pieces, a few milliseconds apart (within the framer's 0.5 s).
                    let cut = Int.random(in: 1..<bytes.count)
                    try scanner.send(Array(bytes[..<cut]))
                    try? await Task.sleep(for: .milliseconds(Int.random(in: 1...40)))
                    try scanner.send(Array(bytes[cut...]))
                    split += 1
                } else {
                    try scanner.send(bytes)
                }
                // Random gaps: mostly a person's pace compressed, sometimes two scans back to back.
                let gap = Int.random(in: 0...10) == 0 ? 0 : Int.random(in: 1...25)
                if gap > 0 { try? await Task.sleep(for: .milliseconds(gap)) }
            }
            let decided = await rig.wait(.seconds(20)) { door.status.admitted + door.status.refused >= count }
            let status = door.status
            #expect(decided != nil, "\(status.admitted + status.refused) decisions for \(count) scans")
            #expect(status.admitted + status.refused == count)
            #expect(status.connectionsLost == 0, "scanner taken for gone \(status.connectionsLost) times")
            #expect(split > count / 5)
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }
}
