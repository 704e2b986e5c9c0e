import DeviceEmulators
import Drivers
import Foundation
import Glibc
import KioskCore
import StationStore
import Testing

@testable import KioskStation
@testable import Rigs

/// The state directory on a small tmpfs that fills up (an SD card full of logs) while customers keep tearing
/// tickets and scanning at the door: no code is handed out twice, the fault says what to do, the door admits
/// nobody it cannot record, and everything resumes by itself once there is room.
@Suite(.serialized) struct FullDiskTests {
    @Test(.enabled(if: HIL.isRoot, "mounts a tmpfs for the state directory: runs as root (make test in CI does)"))
    func aFullDiskHandsOutNoCodeTwice() async throws {
        let mount = HIL.temporaryDirectory("full-disk")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let mounted = try HIL.run("mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", mount])
        try #require(mounted.status == 0, "mount: \(mounted.output)")
        defer {
            _ = try? HIL.run("umount", ["-l", mount])
            try? FileManager.default.removeItem(atPath: mount)
        }
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        let rig = try StationRig(profile: "custom-vkp80iii") {
            $0.device.stateDirectory = mount
            $0.store.capacity = 50
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)"
        }
        do {
            let door = try #require(rig.kiosk.door)
            #expect(await rig.wait { door.status.state == "ready" } != nil)
            for n in 1...5 {
                try await rig.requireTickets(n)
                await rig.customerTakes()
            }
            try await rig.requireTickets(6)
            #expect(FileManager.default.fileExists(atPath: "\(mount)/kioskd.reserve"))

            // Fill the file system to the last byte.
            let filler = "\(mount)/filler"
            _ = try HIL.run("dd", ["if=/dev/zero", "of=\(filler)", "bs=64k"])
            #expect((rig.kiosk.store.freeSpace() ?? 1) < LocalStore.issueThreshold)

            // Customers keep tearing: the ticket waiting (A006) is taken and recorded (from the reserve); no
            // new ticket is issued while nothing can be recorded.
            for _ in 1...10 {
                await rig.customerTakes()
                try? await Task.sleep(for: .milliseconds(150))
            }
            let full = await rig.wait(.seconds(5)) { rig.station.status.storageFull }
            #expect(full != nil, "storage full not reported: \(rig.station.status)")
            let status = rig.station.status
            #expect(status.state == .fault)
            #expect(status.action?.contains("storage full — free space on \(mount)") == true, "\(status.action ?? "-")")
            #expect(status.lastTaken == "A006")
            #expect(rig.emulator.ticketCount == 6, "a ticket was printed with the disk full")

            // The logs keep growing into what the reserve gave back. The door: a refusal is shown (not
            // recorded), an admission is not made unrecorded.
            _ = try HIL.run("dd", ["if=/dev/zero", "of=\(filler)-2", "bs=4k"])
            let tickets = rig.emulator.tickets
            func scan(_ payload: String) async throws -> String? { try await rig.scan(payload, on: scanner) }
            #expect(try await scan("HTTPS://CLUP.EXAMPLE/T/GARBAGE")?.hasPrefix("admit") == false)
            #expect(try await scan(tickets[0].qrCodes[0]) == "not_recorded A001")
            #expect(door.status.storageFull)
            #expect(door.status.action?.contains("storage full") == true)

            // Room again: printing and admitting resume by themselves.
            try FileManager.default.removeItem(atPath: filler)
            try FileManager.default.removeItem(atPath: filler + "-2")
            try await rig.requireTickets(7, timeout: .seconds(5))
            #expect(await rig.wait(.seconds(3)) { !rig.station.status.storageFull } != nil)
            #expect(try await scan(tickets[0].qrCodes[0]) == "admit A001")
            #expect(!door.status.storageFull)
            await rig.customerTakes()
            try await rig.requireTickets(8)

            let codes = rig.emulator.tickets.map { $0.text.first { TicketCode($0) != nil } ?? "?" }
            #expect(codes == (1...8).map { TicketCode(prefix: "A", number: $0).description }, "\(codes)")
            // Every ticket a customer took is in the log once, as taken.
            let taken = try rig.kiosk.store.events().filter { $0.kind == "ticketTaken" }.compactMap(\.ticketID)
            #expect(taken.count == 7 && Set(taken).count == 7)
            #expect(try rig.kiosk.store.integrityCheck() == ["ok"])
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }
}
