import FoundationEssentials
import Testing

@testable import KioskCore

/// A day's turn in a store that is open across it: one that never closes (the day turns at its opening time)
/// and a round-the-clock one whose hours read 00:00–23:59. Nobody waiting loses their place and nobody inside
/// is forgotten; a store that closes for the night still ends its line (``MorningLineTests``).
@Suite struct DayTurnTests: TicketFixtures {
    let store = UUID()
    let signer = TicketSigner()
    /// Tuesday 2026-11-24.
    let tuesday = BusinessDay(year: 2026, month: 11, day: 24)

    func at(_ day: Int64, _ hour: Int, _ minute: Int = 0, _ second: Int = 0) -> Timestamp {
        BusinessDay(number: tuesday.number + day).instant(
            secondsAfterMidnight: hour * 3600 + minute * 60 + second,
            zone: .utc
        )
    }

    func calendar(open: TimeOfDay, close: TimeOfDay?) throws -> StoreCalendar {
        StoreCalendar(hours: try StoreHours.daily(open: open, close: close), zone: .utc)
    }

    /// Opening at 07:00, no closing: three tickets taken at 06:59 are called at once (the store is open) and
    /// are let in after 07:00, when the new day has begun; one of Monday's shoppers is still inside.
    @Test func aStoreThatNeverClosesKeepsItsLineAtTheTurn() throws {
        let calendar = try calendar(open: TimeOfDay(hour: 7, minute: 0), close: nil)
        #expect(calendar.keepsLine(tuesday))
        var queue = QueueState(capacity: 4)
        queue.apply(calendar.dayStarted(BusinessDay(number: tuesday.number - 1), store: store, device: "d"))
        let shopper = ticket(1, kind: .app, at: at(-1, 9))
        queue.apply(event(.ticketIssued(shopper), at: shopper.issuedAt))
        queue.apply(event(.ticketAdmitted(shopper.id, door: "door"), at: at(-1, 9, 1)))
        let paper = (2...4).map { ticket($0, at: at(0, 6, 59, $0)) }
        for t in paper {
            queue.apply(event(.ticketIssued(t), at: t.issuedAt))
            queue.apply(event(.ticketTaken(t.id), at: t.issuedAt + .seconds(2)))
        }
        #expect(queue.called(at: at(0, 6, 59, 30)).map(\.id) == paper.map(\.id), "open at 06:59: called at once")
        // A fourth taken at 06:59:50, its take reaching the log after the new day's start.
        let late = ticket(5, at: at(0, 6, 59, 45))
        queue.apply(event(.ticketIssued(late), at: late.issuedAt))

        queue.apply(calendar.dayStarted(tuesday, store: store, device: "d"))
        queue.apply(event(.ticketTaken(late.id), at: at(0, 6, 59, 50)))
        #expect(queue.day == tuesday && queue.lineKept)
        #expect(queue.inside == 1 && queue.insideAtLastDayEnd == 0, "Monday's shopper is still inside")
        #expect(queue.waitingCount == 4)
        for t in paper {
            #expect(Admission.decide(scan(t), queue: queue, now: at(0, 7, 0, 30)) == .admit(t.code))
        }
        #expect(Admission.decide(scan(late), queue: queue, now: at(0, 7, 0, 30)) == .notYourTurn(ahead: 3))
        // Monday's shopper leaves: counted against those inside, not lost.
        queue.apply(event(.customerExited, at: at(0, 7, 1)))
        #expect(queue.inside == 0)
        #expect(queue.isCalled(late.id, at: at(0, 7, 1)))
        // A kept ticket called and not used runs out as any other: expired, not "from an earlier day".
        queue.apply(event(.ticketExpired(paper[0].id), at: at(0, 7, 15)))
        #expect(Admission.decide(scan(paper[0]), queue: queue, now: at(0, 7, 16)) == .expired)
    }

    /// Hours 00:00–23:59 (a round-the-clock store as the console lets one be set): the day turns at 23:59 and
    /// the line waits through that minute, then goes on in order.
    @Test func aRoundTheClockStoreKeepsItsLineOverItsClosedMinute() throws {
        let calendar = try calendar(open: TimeOfDay(hour: 0, minute: 0), close: TimeOfDay(hour: 23, minute: 59))
        let wednesday = BusinessDay(number: tuesday.number + 1)
        #expect(calendar.keepsLine(wednesday))
        var queue = QueueState(capacity: 1)
        queue.apply(calendar.dayStarted(tuesday, store: store, device: "d"))
        let inside = ticket(1, kind: .app, at: at(0, 23, 50))
        let waiting = (2...3).map { ticket($0, kind: .app, at: at(0, 23, 57, $0)) }
        for t in [inside] + waiting { queue.apply(event(.ticketIssued(t), at: t.issuedAt)) }
        queue.apply(event(.ticketAdmitted(inside.id, door: "door"), at: at(0, 23, 51)))

        queue.apply(calendar.dayStarted(wednesday, store: store, device: "d"))
        #expect(queue.day == wednesday && queue.waitingCount == 2 && queue.inside == 1)
        #expect(
            Admission.decide(scan(waiting[0]), queue: queue, now: at(0, 23, 59, 30))
                == .closed(opensAt: at(1, 0), ahead: 0)
        )
        queue.apply(event(.customerExited, at: at(1, 0, 0, 20)))
        #expect(queue.called(at: at(1, 0, 0, 30)).map(\.id) == [waiting[0].id])
        #expect(Admission.decide(scan(waiting[0]), queue: queue, now: at(1, 0, 0, 30)) == .admit(waiting[0].code))
    }

    /// A store that closes for the night (21:00–07:00) or for five minutes still ends the day's line.
    @Test func aStoreThatClosesEndsItsLine() throws {
        let night = try calendar(open: TimeOfDay(hour: 7, minute: 0), close: TimeOfDay(hour: 21, minute: 0))
        #expect(!night.keepsLine(tuesday))
        let short = try calendar(open: TimeOfDay(hour: 0, minute: 0), close: TimeOfDay(hour: 23, minute: 55))
        #expect(!short.keepsLine(tuesday))
        var queue = QueueState(capacity: 1)
        queue.apply(night.dayStarted(BusinessDay(number: tuesday.number - 1), store: store, device: "d"))
        let t = ticket(1, kind: .app, at: at(-1, 20, 59))
        queue.apply(event(.ticketIssued(t), at: t.issuedAt))
        queue.apply(night.dayStarted(tuesday, store: store, device: "d"))
        #expect(!queue.lineKept && queue.waitingCount == 0)
        #expect(Admission.decide(scan(t), queue: queue, now: at(0, 7, 1)) == .previousDay)
    }

    /// On the wire the field is written only when the line is kept, read back as written, and known to this
    /// version (no "newer field"); an event without it reads as a day that ends the line.
    @Test func theKeptLineIsCodedOnlyWhenKept() throws {
        let hours = DayHours(opens: at(0, 7), closes: nil)
        let kept = event(.dayStarted(tuesday, hours: hours, keepsLine: true), at: at(0, 7))
        let data = try JSONEncoder().encode(kept)
        #expect(String(decoding: data, as: UTF8.self).contains(#""keepsLine":true"#))
        let read = try JSONDecoder().decode(StoreEvent.self, from: data)
        #expect(read.body == kept.body && read.newerFields.isEmpty)
        let ended = try JSONEncoder().encode(StoreEvent.Body.dayStarted(tuesday, hours: hours))
        #expect(!String(decoding: ended, as: UTF8.self).contains("keepsLine"))
    }
}
