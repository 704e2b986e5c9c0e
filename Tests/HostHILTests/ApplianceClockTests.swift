import Foundation
import Glibc
import KioskCore
import Testing

@testable import KioskStation
@testable import Rigs

/// The appliance guest whose board clock is at 1970 (Tests/appliance/clock.sh): installed and run for a while
/// with the right time, its power cut, booted again with qemu's `-rtc base=1970-01-01` and no time server — as a
/// kiosk board without a battery-backed clock boots — so that its clock starts at systemd's build date. kioskd,
/// started by the shipped unit, must print no ticket and decide no scan until the clock is set (the guest sets it
/// when the host says, as NTP would), say why in `/status`, and then go on with the same day: the next code after
/// the last printed, every ticket honoured, and no event stamped by the wrong clock in the server's log.
@Suite(.serialized) struct ApplianceClockTests {
    @Test(.enabled(if: ApplianceTests.skipReason == nil, Comment(rawValue: ApplianceTests.skipReason ?? "")))
    func aBoardClockAt1970PrintsNothingUntilItIsSet() async throws {
        let deb = try #require(ProcessInfo.processInfo.environment["CLUP_TEST_DEB"], "CLUP_TEST_DEB is not set")
        try #require(HIL.isRoot, "the appliance image is made with debootstrap and chroot: run as root")
        let host = try await SyncedGuest(script: "clock.sh", deb: deb, share: "appliance-clock")
        defer { host.stop() }
        let (server, rig, share, guest, store) = (host.server, host.rig, host.share, host.guest, host.store)
        let read = host.read
        let journal = {
            "kioskd: \(read("journal-2.txt").suffix(3000))\nconsole: \(read("console-2.log").suffix(1500))"
        }

        // The right time: installed, and customers for a while.
        var run = CutRun(rig: rig, server: server, store: store)
        try guest.boot(number: 1)
        try await guest.waitInstalled(timeout: .seconds(900))
        try await run.waitReady(guest: guest, timeout: .seconds(480))
        try await run.customers(guest: guest, for: .seconds(6))
        guest.powerCut()
        #expect(read("install.txt").hasPrefix("installed"), "\(read("apt.log").suffix(2000))")

        // The board's clock at 1970.
        try guest.boot(number: 2, qemu: ["-rtc", "base=1970-01-01T00:00:00"])
        var wrong: StationStatus?
        let end = ContinuousClock.now + .seconds(480)
        while wrong == nil, ContinuousClock.now < end {
            if let status = await guest.status(), status.clock?.trusted == false, status.door?.state == "clock_wrong" {
                wrong = status
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        let seen = await guest.status()
        try #require(wrong != nil, "kioskd did not say its clock is wrong: \(String(describing: seen))\n\(journal())")
        // The guest's script writes what the clock read when the rig's unit runs it, which on a loaded machine
        // may be after kioskd has said its clock is wrong.
        var bootClock: Int64 = 0
        for _ in 0..<240 where bootClock == 0 {
            bootClock = Int64(read("boot-clock.txt").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            if bootClock == 0 { try await Task.sleep(for: .milliseconds(250)) }
        }
        #expect(
            bootClock > 0 && bootClock * 1000 < ClockCheck.earliest.milliseconds,
            "the guest booted at \(bootClock)"
        )
        #expect(wrong?.clock?.problem?.contains("no tickets until it is set") == true)
        // A customer tears the ticket left in the printer and one at the door scans theirs: nothing new is
        // printed, nothing decided.
        let printed = rig.emulator.ticketCount
        try await run.customers(guest: guest, for: .seconds(1))
        try await Task.sleep(for: .seconds(5))
        #expect(rig.emulator.ticketCount == printed, "a ticket was printed on a clock at systemd's build date")
        let waiting = await guest.status()
        #expect(waiting?.printer?.state == .clockWrong, "\(String(describing: waiting?.printer))")
        #expect(waiting?.door?.admitted == 0 && waiting?.door?.refused == 0, "a scan was decided on a wrong clock")

        // The clock set, as NTP would: the next ticket prints, and everyone is let in.
        let set = ContinuousClock.now
        try "\(Int64(Date().timeIntervalSince1970))".write(
            toFile: "\(share)/set-clock",
            atomically: true,
            encoding: .utf8
        )
        var believed: StationStatus?
        while believed == nil, ContinuousClock.now - set < .seconds(90) {
            if let status = await guest.status(), status.clock?.trusted == true { believed = status }
            try await Task.sleep(for: .milliseconds(250))
        }
        let trustedAfter = GuestMachine.seconds(ContinuousClock.now - set)
        #expect(believed?.clock?.source == .server, "\(String(describing: believed?.clock))\n\(journal())")
        try await run.waitReady(guest: guest, timeout: .seconds(60))
        #expect(rig.emulator.ticketCount > printed, "no ticket after the clock was set")
        try await run.customers(guest: guest, for: .seconds(3))
        try await run.scanHeld(guest: guest)
        let admitted = await run.waitAdmitted(timeout: .seconds(120))
        _ = FileManager.default.createFile(atPath: "\(share)/done", contents: Data())
        let off = guest.waitOff(timeout: .seconds(120))
        await server.stop(removingData: false)
        #expect(admitted, "tickets not honoured: \(run.notAdmitted())\n\(journal())")
        #expect(off, "the guest did not power off")

        // Paper and log: no code twice, and no event of the kiosk stamped by the clock it booted with.
        let codes = rig.emulator.tickets.compactMap { $0.text.first { TicketCode($0) != nil } }
        #expect(Set(codes).count == codes.count, "codes printed twice: \(AppliancePowerCutTests.repeated(codes))")
        let log = try await server.app.database.events(store: store, after: 0, limit: .max)
        let stale = log.filter { $0.device == SyncedGuest.device && $0.time < ClockCheck.earliest }
        #expect(stale.isEmpty, "events stamped by the wrong clock: \(stale.prefix(3))")
        print(
            "Appliance clock: booted at \(bootClock) s since 1970 (systemd's date), believed \(trustedAfter) s after "
                + "the clock was set; \(codes.count) tickets printed, \(run.torn.count) torn, all honoured: \(admitted)"
        )
        try? FileManager.default.removeItem(atPath: share)
    }
}
