import DeviceEmulators
import Foundation
import KioskCore
import ServiceSupport
import Testing

@testable import KioskStation
@testable import Rigs

/// A store in Rome open 07:00–22:00, a printer kiosk that is not told its zone nor its hours (it takes the
/// store's from clup-server, not the box's), and one shifted clock for both, across the nights of 2026's
/// daylight saving changes: the business day turns at 22:00 on the store's clock (the evening's unused tickets
/// leave, numbers restart, the presenter's ticket goes back in) and the store opens at 07:00 on its clock on
/// kiosk and server — 05:00 UTC after the spring change, 06:00 UTC after the autumn one — not an hour early or
/// late; a ticket torn off in the night is called at the opening.
@Suite(.serialized) struct DaylightSavingTests {
    static func utc(_ month: Int64, _ day: Int64, _ hour: Int64, _ minute: Int64, _ second: Int64 = 0) -> Timestamp {
        Timestamp(
            milliseconds: (BusinessDay(year: 2026, month: month, day: day).number * 86_400 + hour * 3600 + minute * 60
                + second) * 1000
        )
    }

    @Test func theKioskAndTheServerStartTheDayAtOpeningAcrossBothChanges() async throws {
        let offset = WallClock.Offset()
        let clock = WallClock.shifted(by: offset)
        func set(_ time: Timestamp) { offset.move(clock, to: time) }
        set(Self.utc(3, 28, 20, 50))  // Saturday 21:50 CET

        // No no-show expiry while the clock jumps overnight: the night's called tickets would expire at dawn
        // whenever its 5 s tick fell in the test's 2 s look (flaky); the day's start is what this test is about.
        let server = try await ServerRig(clock: clock, expiryInterval: .seconds(3600))
        let store = try await server.registerStore(
            ["timeZone": "Europe/Rome", "openingHours": ServerRig.hours("07:00", "22:00")]
        )
        let credential = try await server.enroll("entrance-printer", store: store)
        let printer = try StationRig(profile: "custom-vkp80iii", clock: clock) {
            $0.syncing(
                with: server,
                store: store,
                device: "entrance-printer",
                credential: credential,
                capacity: 2,
                zone: nil
            )
            #expect($0.store.timeZone == nil)
        }
        do {
            let schedule = printer.kiosk.printer.map { $0.days.schedule }
            #expect(await printer.wait { schedule?.zone.identifier == "Europe/Rome" } != nil, "the server's zone")
            #expect(await printer.wait { schedule?.hours.week[0]?.close != nil } != nil, "the server's hours")
            let queue = { printer.kiosk.queue.snapshot }
            let day = { (month: Int64, day: Int64) in BusinessDay(year: 2026, month: month, day: day) }
            #expect(await printer.wait { queue().day == day(3, 28) } != nil)

            /// The code on the ticket the printer shows now.
            func presented() -> String? {
                printer.emulator.tickets.last?.text.lazy.compactMap { $0.firstMatch(of: /A\d{3}/).map { String($0.0) } }
                    .first
            }
            /// The evening: three tickets torn off; then 20 s before 22:00 on the store's clock, still the evening's
            /// day; then 22:00: the next day's line (this presenter pulls the evening's last ticket back and shows
            /// the next day's A001, which a customer tears off before dawn); then 20 s before 07:00, closed; then
            /// 07:00: open, and the night's ticket is called.
            func night(
                evening: Timestamp,
                closing: Timestamp,
                opening: Timestamp,
                from: BusinessDay,
                to: BusinessDay
            )
                async throws
            {
                set(evening)
                #expect(await printer.wait { queue().day == from && presented() == "A001" } != nil, "\(from)")
                for _ in 1...3 {
                    let printed = printer.emulator.ticketCount
                    await printer.customerTakes()
                    try await printer.requireTickets(printed + 1)
                }
                #expect(await printer.wait { queue().waiting.count == 3 && presented() == "A004" } != nil)
                #expect(await printer.wait { server.queue(store)?.waiting.count == 3 } != nil, "synced")

                set(closing - .seconds(20))
                try await Task.sleep(for: .seconds(2))
                #expect(queue().day == from && queue().waiting.count == 3, "the kiosk turned the day early")
                #expect(presented() == "A004")
                #expect(server.queue(store)?.day == from, "the server turned the day early")

                set(closing + .seconds(5))
                #expect(await printer.wait(.seconds(5)) { queue().day == to && queue().waiting.isEmpty } != nil)
                #expect(
                    await printer.wait(.seconds(5)) { presented() == "A001" } != nil,
                    "\(String(describing: presented()))"
                )
                #expect(await printer.wait(.seconds(5)) { server.queue(store)?.day == to } != nil)

                set(opening - .seconds(20))
                let printed = printer.emulator.ticketCount
                await printer.customerTakes()
                try await printer.requireTickets(printed + 1)
                #expect(await printer.wait { server.queue(store)?.waiting.count == 1 } != nil, "the night's ticket")
                try await Task.sleep(for: .seconds(1))
                let dawn = clock.now()
                #expect(!queue().isOpen(at: dawn) && queue().called(at: dawn).isEmpty, "opened early")
                #expect(server.queue(store).map { !$0.isOpen(at: dawn) } == true, "the server opened early")

                set(opening + .seconds(5))
                let opened = clock.now()
                #expect(queue().called(at: opened).map(\.code.description) == ["A001"])
                #expect(server.queue(store)?.called(at: opened).map(\.code.description) == ["A001"])
            }
            // Spring: 29 March, 02:00 → 03:00. Saturday 21:50 CET is 20:50 UTC and 22:00 CET 21:00 UTC; Sunday
            // 07:00 CEST is 05:00 UTC.
            try await night(
                evening: Self.utc(3, 28, 20, 50),
                closing: Self.utc(3, 28, 21, 0),
                opening: Self.utc(3, 29, 5, 0),
                from: day(3, 28),
                to: day(3, 29)
            )
            // Autumn: 25 October, 03:00 → 02:00. Saturday 21:50 CEST is 19:50 UTC and 22:00 CEST 20:00 UTC;
            // Sunday 07:00 CET is 06:00 UTC.
            try await night(
                evening: Self.utc(10, 24, 19, 50),
                closing: Self.utc(10, 24, 20, 0),
                opening: Self.utc(10, 25, 6, 0),
                from: day(10, 24),
                to: day(10, 25)
            )
        } catch {
            await printer.stop()
            await server.stop()
            throw error
        }
        await printer.stop()
        await server.stop()
    }
}
