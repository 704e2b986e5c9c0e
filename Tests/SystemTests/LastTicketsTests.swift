import DeviceEmulators
import Foundation
import KioskCore
import ServiceSupport
import Testing

@testable import CLupServer
@testable import KioskStation
@testable import Rigs

/// The day's last tickets, lived at the entrance (``LastTickets``): a store that stops issuing once the wait passes
/// closing, kioskd itself under libfaketime at 20:30 (the store closes at 21:00), one place, hour-long visits.
/// The presenter's ticket, printed while nobody waited, goes back in when an app ticket fills the line; no other is
/// printed, the printer's status and the window display say why, and the app refuses the next with the closing.
/// At 21:00 the store closes, and hands out the next day's tickets from an hour before it opens: the status says
/// that instead.
@Suite(.serialized) struct LastTicketsTests {
    @Test(.enabled(if: FakeClockKioskd.ready, Comment(rawValue: FakeClockKioskd.skip)))
    func thePresentersTicketGoesBackInOnceTheWaitPassesClosing() async throws {
        let offset = WallClock.Offset()
        let clock = WallClock.shifted(by: offset)
        // Monday 23 November 2026, 20:59:30 UTC (the store's zone).
        let seconds = FakeClockKioskd.seconds(to: MorningLineTests.utc(23, 20, 59, 30))
        offset.shift(clock, bySeconds: seconds)
        let server = try await ServerRig(clock: clock)
        let storeID = try await server.registerStore([
            "capacity": 1, "timeZone": "UTC", "openingHours": MorningLineTests.week, "name": "Evening Market",
            "averageVisitMinutes": 60, "stopTicketsPastClosing": true, "ticketsBeforeOpeningMinutes": 60,
        ])
        let credential = try await server.enroll("entrance", store: storeID)
        let printer = try EmulatorRig(profile: "custom-vkp80iii")
        let state = HIL.temporaryDirectory("last-tickets")
        let port = try HIL.freePort()
        let config = try MorningLineTests.config(
            state: state,
            printer: printer.tcpAddress,
            store: storeID,
            capacity: 1,
            server: server,
            credential: credential,
            port: port
        )
        let kioskd = FakeClockKioskd(config: config, port: port, state: state)
        defer {
            kioskd.stop()
            printer.stop()
            try? FileManager.default.removeItem(atPath: state)
        }
        do {
            try kioskd.start(shiftedBy: seconds)
            // Nobody waits: A001 is printed and presented (called at once: a place is free).
            #expect(
                await kioskd.until(.seconds(20)) {
                    $0.sync?.state == "online" && $0.printer?.state == .ready
                        && $0.settings?.stopTicketsPastClosing.value == true
                } != nil
            )
            let first = try await printer.requireTickets(1)
            #expect(MorningLineTests.code(first[0]) == "A001")
            // An app holder takes the place: a ticket taken now would wait an hour-long visit, past 21:00.
            let path = "/v1/stores/\(storeID.uuidString)/tickets"
            #expect(try await server.call("POST", path, token: nil).status == 201)
            let stopped = await kioskd.until(.seconds(20)) { $0.printer?.state == .pastClosing }
            #expect(stopped != nil, "\(kioskd.logText)")
            #expect(printer.emulator.retractedTickets.map(\.number) == [1], "the presenter's A001 went back in")
            #expect(stopped?.printer?.waitingTicket == nil)
            // No other ticket comes out, and the app says why.
            try await Task.sleep(for: .seconds(2))
            #expect(printer.emulator.tickets.count == 1)
            let refused = try await server.call("POST", path, token: nil, headers: ["X-Forwarded-For": "10.7.0.2"])
            #expect(refused.status == 409 && refused.body["reason"] as? String == "past_closing", "\(refused)")
            #expect(kioskd.logText.contains("no more tickets today: the wait passes closing"))
            #expect(clock.now() < MorningLineTests.utc(23, 21, 0), "the test was too slow to look before closing")
            // 21:00: closed, tickets from 06:00.
            let closed = await kioskd.until(.seconds(40)) { $0.printer?.state == .closed }
            #expect(
                closed?.printer?.ticketsFrom == MorningLineTests.utc(24, 6, 0).milliseconds,
                "\(String(describing: closed?.printer))"
            )
            #expect(printer.emulator.tickets.count == 1)
        } catch {
            Issue.record("kioskd's log:\n\(kioskd.logText)")
            throw error
        }
    }
}
