import DeviceEmulators
import Drivers
import Foundation
import KioskCore
import ServiceSupport
import Testing

@testable import KioskStation
@testable import Rigs

/// The ticket nobody takes, on presenter printers that can retract (the emulator behind a real TCP socket or
/// pty): with `retract_after_seconds` it is pulled back in and replaced by the next number; a ticket left in the
/// presenter when the business day starts is pulled back and replaced by the day's first number. The shipped
/// profiles cannot tell a ticket pulled back from one a customer took as it was pulled: it is set aside, still
/// valid (never voided); a printer whose status says it went back in (`ticket_retracted`) voids it. A presenter
/// that cannot retract keeps it, and its holder is admitted when it is taken.
@Suite(.serialized) struct RetractTests {
    @Test(arguments: [("citizen-ppu-700", "pty"), ("custom-vkp80iii", "tcp")])
    func aTicketNobodyTakesIsRetractedAndReplaced(profile: String, transport: String) async throws {
        let rig = try StationRig(profile: profile, transport: transport) { $0.printer.retractAfter = .seconds(1) }
        do {
            let first = try await rig.requireTickets(1)
            // Nobody comes: after a second it goes back in and A002 comes out in its place.
            let second = try await rig.requireTickets(2, timeout: .seconds(5))
            let waited = second[1].cutAt - first[0].cutAt
            #expect(waited >= .seconds(1), "retracted after \(waited), before retract_after_seconds")
            #expect(waited < .seconds(3), "retracted only after \(waited)")
            #expect(rig.emulator.retractedTickets.map(\.number) == [1])
            #expect(rig.emulator.takenTickets.isEmpty)
            #expect(second[1].text.contains { $0.contains("A002") }, "\(second[1].text)")
            #expect(rig.station.status.ticketsRetracted == 1)
            let queue = rig.kiosk.queue.snapshot
            let aside = queue.entries.values.first { $0.ticket.code.description == "A001" }
            #expect(aside?.stage == .inPrinter, "A001 is set aside: never called, its holder admitted if any")

            // Taken in time: it joins the line, nothing is retracted.
            await rig.customerTakes()
            let third = try await rig.requireTickets(3)
            #expect(third[2].text.contains { $0.contains("A003") })
            #expect(rig.emulator.retractedTickets.count == 1)
            #expect(rig.emulator.takenTickets.map(\.number) == [2])
            #expect(await rig.wait { rig.kiosk.queue.snapshot.waiting.map(\.code.description) == ["A002"] } != nil)
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    /// The day starts (the clock moves to the next morning) with a ticket still in the presenter: it goes back
    /// in (set aside, not voided: the printer cannot tell), and the new day's A001 comes out at once.
    @Test func anEarlierDaysTicketIsRetractedWhenTheDayStarts() async throws {
        let offset = WallClock.Offset()
        let rig = try StationRig(profile: "custom-vkp80iii", clock: .shifted(by: offset))
        do {
            _ = try await rig.requireTickets(1)
            await rig.customerTakes()
            let evening = try await rig.requireTickets(2)
            #expect(evening[1].text.contains { $0.contains("A002") })
            try await Task.sleep(for: .milliseconds(300))
            #expect(rig.emulator.retractedTickets.isEmpty, "a ticket of today stays")

            offset.advance(by: .seconds(86_400))
            let morning = try await rig.requireTickets(3, timeout: .seconds(5))
            #expect(rig.emulator.retractedTickets.map(\.number) == [2])
            #expect(morning[2].text.contains { $0.contains("A001") }, "numbers restart: \(morning[2].text)")
            // Set aside: never called, not void; on disk it no longer waits, the new A001 does.
            let queue = rig.kiosk.queue.snapshot
            let old = queue.entries.values.first { $0.ticket.code.description == "A002" }
            #expect(old?.stage == .inPrinter, "\(String(describing: old?.stage))")
            #expect(try rig.kiosk.store.waitingTicket(prefix: "A")?.ticket.code.description == "A001")
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    /// A presenter that cannot retract keeps the ticket over the day's start; taken, it joins the new day's
    /// line (its holder gets in), and the next is the day's A001.
    @Test func aPresenterThatCannotRetractKeepsTheTicket() async throws {
        let profiles = try HIL.profileWithoutRetract("custom-vkp80iii")
        defer { try? FileManager.default.removeItem(atPath: profiles) }
        let offset = WallClock.Offset()
        let rig = try StationRig(
            profile: "custom-vkp80iii",
            clock: .shifted(by: offset),
            profileDirectories: [profiles]
        )
        do {
            _ = try await rig.requireTickets(1)
            offset.advance(by: .seconds(86_400))
            try await Task.sleep(for: .milliseconds(500))
            #expect(rig.emulator.ticketCount == 1 && rig.emulator.retractedTickets.isEmpty)
            await rig.customerTakes()
            let tickets = try await rig.requireTickets(2)
            #expect(tickets[1].text.contains { $0.contains("A001") }, "\(tickets[1].text)")
            let kept = await rig.wait {
                rig.kiosk.queue.snapshot.waiting.map(\.code.description) == ["A001"]
                    && rig.kiosk.queue.snapshot.waiting.first?.issuedAt != nil
            }
            #expect(kept != nil, "yesterday's A001, taken this morning, waits in today's line")
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    /// A printer whose status says the ticket went back in (a profile that maps `ticket_retracted`): the
    /// retracted ticket is void — never called, its code refused.
    @Test func aPrinterThatTellsARetractVoidsTheTicket() async throws {
        let profiles = try HIL.profileThatTellsRetracts("custom-vkp80iii")
        defer { try? FileManager.default.removeItem(atPath: profiles) }
        let rig = try StationRig(profile: "custom-vkp80iii", profileDirectories: [profiles]) {
            $0.printer.retractAfter = .seconds(1)
        }
        do {
            _ = try await rig.requireTickets(2, timeout: .seconds(5))
            #expect(rig.emulator.retractedTickets.map(\.number) == [1])
            let voided = await rig.wait {
                rig.kiosk.queue.snapshot.entries.values.first { $0.ticket.code.description == "A001" }?.stage
                    == .cancelled
            }
            #expect(voided != nil, "A001 went back in: void")
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    /// `retract_after_seconds` on a printer that cannot retract is a configuration mistake, said at start.
    @Test func retractAfterNeedsAPrinterThatCanRetract() async throws {
        let rig = try StationRig(profile: "epson-tm-t88") { $0.printer.retractAfter = .seconds(60) }
        var failure: (any Error)?
        do { try await rig.task.value } catch { failure = error }
        #expect(
            "\(failure.map { "\($0)" } ?? "no error")".contains(
                "cannot retract a ticket — remove [printer] retract_after_seconds"
            )
        )
        #expect(rig.emulator.ticketCount == 0)
        await rig.stop()
    }
}
