import DeviceEmulators
import Drivers
import Foundation
import KioskCore
import Testing

@testable import KioskStation
@testable import Rigs

/// Printed tickets → zbarimg reads their QR from the emulator's PNGs → a scanner emulator on a pty sends them
/// with each suffix, with and without AIM prefix → the serial scanner reader → verification → admission.
@Suite(.serialized) struct DoorScanTests {
    @Test(.enabled(if: HIL.needs("zbarimg"), "zbarimg not installed (apt-get install zbar-tools; make test does it)"))
    func printedTicketsScannedThroughAPtyGetTheRightDecisions() async throws {
        let rig = try StationRig(profile: "custom-vkp80iii") { $0.store.capacity = 2 }
        do {
            for n in 1...3 {
                try await rig.requireTickets(n)
                await rig.customerTakes()
            }
            let tickets = try await rig.requireTickets(4)
            let decoded = try HIL.run(
                "zbarimg",
                ["--quiet", "--raw", "-Sdisable", "-Sqrcode.enable"] + tickets.prefix(4).compactMap(\.pngPath)
            )
            let payloads = decoded.output.split(separator: "\n").map(String.init)
            try #require(payloads.count == 4)
            let ring = try rig.keyRing()
            let queue = rig.kiosk.queue.snapshot
            let expected: [AdmissionDecision] = [
                .admit(TicketCode(prefix: "A", number: 1)), .admit(TicketCode(prefix: "A", number: 2)),
                .notYourTurn(ahead: 2),
                .notYourTurn(ahead: 3),  // A004 still "in the printer" for the log: scanned, it was torn off
            ]
            for suffix in ScanFramer.Suffix.allCases {
                for aim in [nil, "]Q1"] {
                    let scanner = try SerialScannerEmulator(suffix: suffix, aimPrefix: aim)
                    defer { scanner.close() }
                    let reader = SerialScannerReader(path: scanner.path, framer: ScanFramer(suffix: suffix))
                    try reader.open()
                    defer { reader.close() }
                    for payload in payloads { try scanner.scan(payload) }
                    var scans: [Scan] = []
                    let deadline = ContinuousClock.now + .seconds(5)
                    while scans.count < payloads.count && ContinuousClock.now < deadline {
                        for case .scan(let scan) in try reader.read(timeout: .milliseconds(50)) { scans.append(scan) }
                    }
                    #expect(scans.map(\.text) == payloads, "suffix \(suffix), AIM \(aim ?? "none")")
                    #expect(scans.allSatisfy { $0.symbology == aim.map { String($0.dropFirst()) } })
                    let decisions = scans.map { scan in
                        Admission.decide(
                            Result { () throws(TicketCodec.DecodeError) in
                                try TicketCodec.decode(
                                    scan.text,
                                    prefix: "HTTPS://CLUP.EXAMPLE/T/",
                                    keyRing: ring,
                                    store: StationRig.store
                                )
                            },
                            queue: queue,
                            now: Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
                        )
                    }
                    #expect(decisions == expected, "suffix \(suffix), AIM \(aim ?? "none")")
                }
            }
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }
}
