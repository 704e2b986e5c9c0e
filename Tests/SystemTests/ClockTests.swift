import DeviceEmulators
import Foundation
import Glibc
import KioskCore
import Testing

@testable import KioskStation
@testable import Rigs

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// kioskd started on a box whose clock went back (a board without a real-time clock boots at the image's date
/// or the time saved at its last clean shutdown, until NTP answers), under libfaketime, offline: it prints no
/// ticket and decides nothing, and says why in `/status`, the manager page's notice and a metric; once the clock
/// is right again the day, the line and the numbers go on where they were.
@Suite(.serialized) struct ClockTests {
    @Test(.enabled(if: FakeClockKioskd.ready, Comment(rawValue: FakeClockKioskd.skip)))
    func aClockBackAtAnOldDatePrintsNothingUntilItIsSet() async throws {
        let entrance = try FakeClockEntrance("clock", store: "capacity = 1", logLevel: "info")
        defer { entrance.stop() }
        let (rig, scanner, kioskd) = (entrance.rig, entrance.scanner, entrance.kioskd)
        let port = kioskd.port

        // Today, the clock right: three tickets torn off, the first let in.
        try kioskd.start(shiftedBy: 0)
        try await entrance.running("today") {
            for n in 1...3 {
                _ = try await rig.requireTickets(n)
                try await Task.sleep(for: .milliseconds(60))
                rig.emulator.simulate(.take)
            }
            let tickets = try await rig.requireTickets(4)
            #expect(await kioskd.until { $0.door?.state == "ready" && $0.queue.waiting == 3 } != nil)
            #expect(try await kioskd.scan(tickets[0].qrCodes[0], on: scanner) == "admit A001")
            let status = await kioskd.status()
            #expect(status?.clock == ClockWatch.Status(trusted: true, source: .unchecked))
        }
        #expect(kioskd.stop() == 0)
        let printed = rig.emulator.ticketCount

        // Started again with the clock three days back (the time saved at the last clean shutdown).
        try kioskd.start(shiftedBy: -3 * 86_400)
        try await entrance.running("with the clock three days back") {
            let wrong = await kioskd.until {
                $0.clock?.trusted == false && $0.door?.state == "clock_wrong"
            }
            let seen = await kioskd.status()
            #expect(wrong != nil, "\(String(describing: seen))")
            #expect(wrong?.clock?.problem?.contains("3 days before the last time this kiosk saw") == true)
            #expect(wrong?.queue.notice?.hasPrefix("Waiting for the right time") == true)
            // The waiting ticket is torn off: its take joins the line behind the others (stamped when the clock
            // was last believed, not three days ago), nothing new is printed, and a scan is not decided.
            rig.emulator.simulate(.take)
            try scanner.scan(rig.emulator.tickets[1].qrCodes[0])
            let taken = await kioskd.until { $0.queue.waiting == 3 && $0.printer?.state == .clockWrong }
            #expect(taken?.printer?.action?.contains("no tickets until it is set") == true)
            #expect(taken?.queue.next == ["A002", "A003", "A004"], "\(String(describing: taken?.queue.next))")
            try await Task.sleep(for: .seconds(3))
            #expect(rig.emulator.ticketCount == printed, "a ticket was printed on a wrong clock")
            let after = await kioskd.status()
            #expect(after?.door?.admitted == 0 && after?.door?.refused == 0, "a scan was decided on a wrong clock")
            #expect(after?.queue.inside == 1, "the day was started again on a wrong clock")
            let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
            #expect(String(decoding: data, as: UTF8.self).contains("clup_clock_trusted 0"))
        }
        #expect(kioskd.stop() == 0)

        // The clock set right (NTP answered): the same day goes on, the next number follows the last printed.
        try kioskd.start(shiftedBy: 0)
        try await entrance.running("with the clock set") {
            #expect(await kioskd.until { $0.clock?.trusted == true && $0.door?.state == "ready" } != nil)
            let next = try await rig.requireTickets(printed + 1)
            let codes = next.compactMap { ticket in ticket.text.first { $0.contains("A00") } }
            #expect(Set(codes).count == codes.count, "a code printed twice: \(codes)")
            #expect(codes.last == "A005" || codes.contains("A005"), "\(codes)")
            let status = await kioskd.status()
            #expect(status?.queue.inside == 1 && status?.queue.next == ["A002", "A003", "A004"])
        }
        #expect(kioskd.stop() == 0)
    }
}
