import Foundation
import KioskCore
import Testing

@testable import KioskStation
@testable import Rigs

extension AppliancePowerCutTests {
    /// The last boot after the cuts, booted with qemu's `-rtc base=1970-01-01` and no time server — as a kiosk
    /// board without a battery-backed clock boots after a power cut — so that its clock starts at systemd's build
    /// date (every boot before it forgot the time systemd-timesyncd saved: Tests/appliance/power-cuts.sh).
    /// kioskd, started by the shipped unit, must print no ticket and decide no scan until the clock is set, say
    /// why in `/status`, and believe the clock once the guest sets it (when the host says, as NTP would).
    /// Returns what it measured, for the run's line.
    static func boardClockAt1970(_ host: SyncedGuest, run: inout CutRun) async throws -> String {
        let (guest, rig, read) = (host.guest, host.rig, host.read)
        let journal = { "kioskd: \(read("journal-\(guest.booted).txt").suffix(3000))\n\(guest.evidence())" }
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

        // The clock set, as NTP would: kioskd believes it, and the next ticket prints (the caller waits for it).
        let set = ContinuousClock.now
        try "\(Int64(Date().timeIntervalSince1970))".write(
            toFile: "\(host.share)/set-clock",
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
        return String(format: "booted at %lld s since 1970, believed %.1f s after it was set", bootClock, trustedAfter)
    }
}
