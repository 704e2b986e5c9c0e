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

/// kioskd itself across a night, under libfaketime (Debian's `faketime`): run in the evening, stopped, started
/// again the next morning with yesterday's state on disk. The new day starts with nobody inside and nobody
/// waiting, yesterday's waiting ticket is refused as yesterday's, the ticket that waited in the printer overnight
/// gets in, and numbers restart at 001.
@Suite(.serialized) struct FakeClockTests {
    @Test(.enabled(if: FakeClockKioskd.ready, Comment(rawValue: FakeClockKioskd.skip)))
    func theNextMorningUnderAFakeClock() async throws {
        // A presenter that cannot retract: the ticket left in it overnight stays (RetractTests and
        // BadDaySyncTests have the one that can).
        let entrance = try FakeClockEntrance(
            "fake-clock",
            store: """
                capacity = 3
                opening_time = "07:00"
                closing_time = "23:00"
                """
        )
        defer { entrance.stop() }
        let (rig, scanner, kioskd) = (entrance.rig, entrance.scanner, entrance.kioskd)
        /// The store's clock in UTC.
        func utc(_ text: String) -> Timestamp {
            let formatter = ISO8601DateFormatter()
            return Timestamp(milliseconds: Int64(formatter.date(from: text)!.timeIntervalSince1970 * 1000))
        }

        // The evening: six tickets torn off, three let in (capacity 3).
        try kioskd.start(shiftedBy: FakeClockKioskd.seconds(to: utc("2026-11-23T21:50:00Z")))
        try await entrance.running("in the evening") {
            for n in 1...6 {
                _ = try await rig.requireTickets(n)
                try await Task.sleep(for: .milliseconds(60))
                rig.emulator.simulate(.take)
            }
            let tickets = try await rig.requireTickets(7)
            #expect(await kioskd.until { $0.door?.state == "ready" && $0.queue.waiting == 6 } != nil)
            for n in 0..<3 { #expect(try await kioskd.scan(tickets[n].qrCodes[0], on: scanner) == "admit A00\(n + 1)") }
            #expect(try await kioskd.scan(tickets[3].qrCodes[0], on: scanner) == "store_full A004")
        }
        kioskd.stop()
        let tickets = rig.emulator.tickets

        // 08:05 the next morning, started again on the same state.
        try kioskd.start(shiftedBy: FakeClockKioskd.seconds(to: utc("2026-11-24T08:05:00Z")))
        try await entrance.running("in the morning") {
            let fresh = await kioskd.until {
                $0.queue.inside == 0 && $0.queue.waiting == 0 && $0.door?.state == "ready"
            }
            let seen = await kioskd.status()
            #expect(fresh != nil, "the morning still shows yesterday: \(String(describing: seen?.queue))")
            #expect(try await kioskd.scan(tickets[3].qrCodes[0], on: scanner) == "previous_day A004")
            // The ticket that waited in the printer overnight (this printer cannot retract it) gets in.
            #expect(try await kioskd.scan(tickets[6].qrCodes[0], on: scanner) == "admit A007")
            rig.emulator.simulate(.take)
            let next = try await rig.requireTickets(8)
            #expect(next[7].text.contains { $0.contains("A001") }, "numbers did not restart: \(next[7].text)")
            #expect(await kioskd.until { $0.queue.inside == 1 } != nil)
        }
        #expect(kioskd.stop() == 0)
    }
}
