import Foundation
import Glibc
import KioskCore
import StationStore
import Testing

@testable import KioskStation
@testable import Rigs

/// The appliance guest's power cuts (Tests/appliance/power-cuts.sh): the package installed by apt, kioskd
/// started by the shipped unit, its printer and clup-server here on the host (the guest reaches them at
/// 10.0.2.2, so they outlive the cuts, as a shop's printer and the chain's server do), its serial scanner a
/// socket here (the guest's ttyS1). Customers tear tickets every ~0.5 s and scan some at the door; the guest
/// is killed at a random moment (qemu with SIGKILL: what the guest had not flushed to its `cache=none` disk is
/// gone) and boots again from the same disk, `CLUP_APPLIANCE_CUTS` times (5; the bench runs 50). The last boot
/// is a board without a battery-backed clock: its clock at 1970 (`boardClockAt1970`).
///
/// Over the run: kioskd's database passes `PRAGMA integrity_check` after every boot; no code is printed twice;
/// every ticket a customer tore is honoured at the door after the next boot, and nobody is admitted twice; and
/// every event the server acknowledged is still in the kiosk's database, every kiosk event in the server's log
/// once, none stamped by the clock the last boot started with.
@Suite(.serialized) struct AppliancePowerCutTests {
    @Test(.enabled(if: ApplianceTests.skipReason == nil, Comment(rawValue: ApplianceTests.skipReason ?? "")))
    func powerCutsLoseNothing() async throws {
        let deb = try #require(ProcessInfo.processInfo.environment["CLUP_TEST_DEB"], "CLUP_TEST_DEB is not set")
        try #require(HIL.isRoot, "the appliance image is made with debootstrap and chroot: run as root")
        let cuts = ProcessInfo.processInfo.environment["CLUP_APPLIANCE_CUTS"].flatMap(Int.init) ?? 5
        let host = try await SyncedGuest(script: "power-cuts.sh", deb: deb, share: "appliance-cuts")
        defer { host.stop() }
        let (server, rig, share, guest, store) = (host.server, host.rig, host.share, host.guest, host.store)

        var run = CutRun(rig: rig, server: server, store: store)
        var started: [Double] = []
        var clockSet = ""
        for boot in 1...(cuts + 1) {
            let final = boot == cuts + 1
            if final { _ = FileManager.default.createFile(atPath: "\(share)/final", contents: Data()) }
            let clock = ContinuousClock.now
            try guest.boot(number: boot, qemu: final ? ["-rtc", "base=1970-01-01T00:00:00"] : [])
            if boot == 1 { try await guest.waitInstalled(timeout: .seconds(900)) }
            if final { clockSet = try await Self.boardClockAt1970(host, run: &run) }
            try await run.waitReady(guest: guest, timeout: .seconds(480))
            if !final { started.append(GuestMachine.seconds(ContinuousClock.now - clock)) }
            // Whoever tore a ticket before the cut comes to the door now.
            try await run.scanHeld(guest: guest)
            if final { break }
            try await run.customers(guest: guest, for: .milliseconds(Int.random(in: 4_000...12_000)))
            guest.powerCut()
        }
        try await run.scanHeld(guest: guest)
        let synced = await run.waitAdmitted(timeout: .seconds(120))
        _ = FileManager.default.createFile(atPath: "\(share)/done", contents: Data())
        let off = guest.waitOff(timeout: .seconds(120))
        await server.stop(removingData: false)

        let read = host.read
        let diagnosis = {
            "install: \(read("install.txt")) kioskd: \(read("journal-final.txt").suffix(3000))\nconsole: "
                + read("console-\(cuts + 1).log").suffix(2000)
        }
        #expect(read("install.txt").hasPrefix("installed"), "\(read("apt.log").suffix(2000))")
        #expect(off, "the guest did not power off after the final boot\n\(diagnosis())")
        #expect(synced, "tickets not admitted on the server: \(run.notAdmitted())\n\(diagnosis())")

        // The database after every boot.
        let integrity = (2...(cuts + 1)).map {
            read("integrity-\($0).txt").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(
            integrity.allSatisfy { $0 == "ok" },
            "integrity_check after each boot: \(integrity)\nconsole: \(read("console-\(cuts + 1).log").suffix(3000))"
        )

        // Paper: no code printed twice; the log: issued, taken and admitted once each.
        let printed = rig.emulator.tickets.compactMap { $0.text.first { TicketCode($0) != nil } }
        #expect(Set(printed).count == printed.count, "codes printed twice: \(Self.repeated(printed))")
        let log = try await server.app.database.events(store: store, after: 0, limit: .max)
        let issued = log.compactMap { event -> String? in
            if case .ticketIssued(let ticket, _) = event.body { return ticket.code.description }
            return nil
        }
        #expect(
            Set(issued).count == issued.count,
            """
            codes issued twice: \(Self.repeated(issued))
            \(Self.dayTrail(log, codes: Self.repeated(issued)))
            kioskd: \(read("journal-final.txt").split(separator: "\n").filter { $0.contains("day") }.joined(separator: "\n"))
            """
        )
        let admitted = log.compactMap { event -> TicketID? in
            if case .ticketAdmitted(let id, _) = event.body { return id }
            return nil
        }
        #expect(Set(admitted).count == admitted.count, "admitted twice: \(Self.repeated(admitted))")
        let stale = log.filter { $0.device == SyncedGuest.device && $0.time < ClockCheck.earliest }
        #expect(stale.isEmpty, "events stamped by the clock at 1970: \(stale.prefix(3))")
        #expect(run.torn.count >= 4 * cuts, "too few tear-offs to mean anything: \(run.torn.count)")

        // Every event the server acknowledged is still in the kiosk's database, and every kiosk event is in the
        // server's log once.
        let local = try LocalStore(path: "\(share)/final.sqlite").events()
        let mine = Set(log.filter { $0.device == SyncedGuest.device }.map(\.id))
        let kept = Set(local.filter { $0.device == SyncedGuest.device }.map(\.id))
        #expect(mine.subtracting(kept).isEmpty, "acknowledged but lost by the kiosk: \(mine.subtracting(kept).count)")
        #expect(kept.subtracting(mine).isEmpty, "never reached the server: \(kept.subtracting(mine).count)")

        let table = """
            Appliance power cuts: \(cuts) cuts, \(cuts + 1) boots; boot to ready \(Self.spread(started)) s; \
            the last at 1970: \(clockSet); \
            \(printed.count) tickets printed, \(Set(printed).count) codes, \(printed.count - Set(printed).count) \
            printed twice; \(run.torn.count) torn, \(run.scans) scans, \(admitted.count) admitted, \
            \(run.notAdmitted().count) not honoured; integrity failures \(integrity.count { $0 != "ok" })
            """
        print(table)
        try? FileManager.default.removeItem(atPath: share)
    }

    static func repeated<T: Hashable>(_ values: [T]) -> [T] {
        Dictionary(grouping: values) { $0 }.filter { $0.value.count > 1 }.map(\.key)
    }

    /// The days the log started and the repeated codes' issues, in the log's order: what a code issued twice
    /// tells about the day the kiosk counted in.
    static func dayTrail(_ log: [StoreEvent], codes: [String]) -> String {
        log.compactMap { event -> String? in
            let head = "#\(event.sequence ?? -1) \(event.device) at \(event.time.seconds)"
            switch event.body {
            case .dayStarted(let day, let hours, _):
                return "\(head): day \(day.dateText) opens \(hours.map { "\($0.opens.seconds)" } ?? "–")"
            case .ticketIssued(let ticket, _) where codes.contains(ticket.code.description):
                return "\(head): \(ticket.code) issued at \(ticket.issuedAt.seconds)"
            default:
                return nil
            }
        }.joined(separator: "\n")
    }

    static func spread(_ seconds: [Double]) -> String {
        let sorted = seconds.sorted()
        guard let first = sorted.first, let last = sorted.last else { return "–" }
        return String(format: "%.0f–%.0f (median %.0f)", first, last, sorted[sorted.count / 2])
    }
}
