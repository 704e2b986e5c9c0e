import FoundationEssentials
import Testing

@testable import KioskCore

/// The morning line in the fold: tickets taken between closing and opening are the next day's, in the order
/// taken; nobody is called or admitted while the store is closed; at opening they are called in order with
/// their call window from the opening; yesterday's unused tickets are refused as yesterday's; after closing
/// nobody new is admitted, and those inside still leave.
@Suite struct MorningLineTests: TicketFixtures {
    let store = UUID()
    let signer = TicketSigner()
    let calendar = StoreCalendar(hours: StoreCalendarTests.week, zone: .utc)
    /// Tuesday 2026-11-24 opens at 07:00 UTC, closes at 21:00.
    let tuesday = BusinessDay(year: 2026, month: 11, day: 24)

    func at(_ day: Int64, _ hour: Int, _ minute: Int = 0, _ second: Int = 0) -> Timestamp {
        BusinessDay(number: tuesday.number + day).instant(
            secondsAfterMidnight: hour * 3600 + minute * 60 + second,
            zone: .utc
        )
    }

    /// Monday's evening (capacity 2): two admitted, two left waiting when the store closed at 21:00; then the
    /// day keeper's start of Tuesday at the closing.
    func mondayNight() -> (QueueState, leftovers: [Ticket]) {
        var queue = QueueState(capacity: 2)
        queue.apply(calendar.dayStarted(BusinessDay(number: tuesday.number - 1), store: store, device: "d"))
        let tickets = (1...4).map { ticket($0, at: at(-1, 20, 30 + $0)) }
        for t in tickets {
            queue.apply(event(.ticketIssued(t), at: t.issuedAt))
            queue.apply(event(.ticketTaken(t.id), at: t.issuedAt + .seconds(2)))
        }
        for t in tickets.prefix(2) { queue.apply(event(.ticketAdmitted(t.id, door: "door"), at: at(-1, 20, 40))) }
        queue.apply(calendar.dayStarted(tuesday, store: store, device: "d"))
        return (queue, Array(tickets.suffix(2)))
    }

    @Test func theEarlyLineWaitsUntilOpeningAndIsCalledInOrder() {
        var (queue, leftovers) = mondayNight()
        #expect(queue.day == tuesday && !queue.isOpen(at: at(-1, 21, 5)))
        #expect(queue.waitingCount == 0, "Monday's unused tickets left with Monday")
        // Tuesday's line forms overnight: paper torn at 06:59:23–24, app tickets at 06:58.
        let app = (11...12).map { ticket($0, kind: .app, at: at(0, 6, 58, $0)) }
        for t in app { queue.apply(event(.ticketIssued(t), at: t.issuedAt)) }
        let paper = (3...5).map { ticket($0, at: at(0, 6, 59, 20)) }
        for (n, t) in paper.enumerated() {
            queue.apply(event(.ticketIssued(t), at: t.issuedAt))
            queue.apply(event(.ticketTaken(t.id), at: at(0, 6, 59, 23 + n)))
        }
        let beforeOpening = at(0, 6, 59, 50)
        #expect(queue.called(at: beforeOpening).isEmpty, "called while closed")
        #expect(Admission.noShows(queue: queue, now: beforeOpening).isEmpty)
        #expect(queue.untilOpen(at: beforeOpening) == .seconds(10))
        #expect(
            Admission.decide(scan(paper[0]), queue: queue, now: beforeOpening)
                == .closed(opensAt: at(0, 7), ahead: 2)
        )
        #expect(
            AdmissionDecision.closed(opensAt: at(0, 7), ahead: 2).message(calendar, now: beforeOpening)
                == "the store opens at 07:00 — you are 3rd in line"
        )
        // Yesterday's: refused as yesterday's, before and after the opening.
        #expect(Admission.decide(scan(leftovers[0]), queue: queue, now: beforeOpening) == .previousDay)
        #expect(Admission.decide(scan(leftovers[1]), queue: queue, now: at(0, 7, 1)) == .previousDay)

        // 07:00: the first two (capacity 2) of the line, in the order they were taken, are called.
        let opened = at(0, 7, 0, 30)
        #expect(queue.called(at: opened).map(\.id) == app.map(\.id))
        #expect(Admission.decide(scan(app[0]), queue: queue, now: opened) == .admit(app[0].code))
        #expect(Admission.decide(scan(paper[0]), queue: queue, now: opened) == .notYourTurn(ahead: 2))
        // Their call window runs from the opening, not from when they joined.
        #expect(queue.callTime(of: app[1].id, at: opened) == at(0, 7))
        #expect(Admission.noShows(queue: queue, now: at(0, 7, 9, 59)).isEmpty)
        #expect(Admission.noShows(queue: queue, now: at(0, 7, 10, 1)).count == 2)
        // Stamped at the opening by the first event after it, too.
        queue.apply(event(.ticketAdmitted(app[0].id, door: "door"), at: at(0, 7, 4)))
        #expect(queue.calledAt[app[1].id] == at(0, 7))
        #expect(queue.called(at: at(0, 7, 4)).map(\.id) == [app[1].id], "one place left: one called")
    }

    @Test func afterClosingNobodyIsAdmittedAndThoseInsideLeave() {
        var (queue, _) = mondayNight()
        let first = ticket(1, kind: .app, at: at(0, 8))
        let second = ticket(2, kind: .app, at: at(0, 20, 50))
        let third = ticket(3, kind: .app, at: at(0, 20, 51))
        for t in [first, second, third] { queue.apply(event(.ticketIssued(t), at: t.issuedAt)) }
        queue.apply(event(.ticketAdmitted(first.id, door: "door"), at: at(0, 8, 1)))
        #expect(queue.inside == 1)
        #expect(Admission.decide(scan(second), queue: queue, now: at(0, 20, 59)) == .admit(second.code))
        // 21:00: the store closes (the next day's start is not written yet): nobody new comes in.
        #expect(
            Admission.decide(scan(second), queue: queue, now: at(0, 21, 0, 1)) == .closed(opensAt: nil, ahead: 0)
        )
        #expect(queue.called(at: at(0, 21, 0, 1)).isEmpty)
        // Wednesday's start at the closing: Tuesday's unused tickets are yesterday's; whoever is inside
        // still leaves through the door, counted against those inside at closing.
        queue.apply(calendar.dayStarted(BusinessDay(number: tuesday.number + 1), store: store, device: "d"))
        #expect(Admission.decide(scan(third), queue: queue, now: at(0, 21, 5)) == .previousDay)
        #expect(queue.inside == 0 && queue.insideAtLastDayEnd == 1)
        #expect(queue.countsExit(at: at(0, 21, 10)))
        queue.apply(event(.customerExited, at: at(0, 21, 10)))
        #expect(queue.insideAtLastDayEnd == 0 && queue.inside == 0)
        #expect(!queue.countsExit(at: at(0, 21, 11)))
    }

    /// A closed Sunday: Monday's line starts on Saturday evening; nobody is called on Sunday.
    @Test func aClosedSundayCallsNobody() {
        var queue = QueueState(capacity: 5)
        let saturday = BusinessDay(year: 2026, month: 11, day: 28)
        let monday = BusinessDay(year: 2026, month: 11, day: 30)
        queue.apply(calendar.dayStarted(saturday, store: store, device: "d"))
        #expect(calendar.businessDay(at: saturday.instant(secondsAfterMidnight: 21 * 3600, zone: .utc)) == monday)
        queue.apply(calendar.dayStarted(monday, store: store, device: "d"))
        let sundayNoon = BusinessDay(number: saturday.number + 1).instant(secondsAfterMidnight: 12 * 3600, zone: .utc)
        let t = ticket(1, kind: .app, at: sundayNoon)
        queue.apply(event(.ticketIssued(t), at: t.issuedAt))
        #expect(!queue.isOpen(at: sundayNoon) && queue.called(at: sundayNoon).isEmpty)
        #expect(
            Admission.decide(scan(t), queue: queue, now: sundayNoon + .seconds(60))
                == .closed(
                    opensAt: monday.instant(secondsAfterMidnight: 7 * 3600, zone: .utc),
                    ahead: 0
                )
        )
        #expect(queue.isCalled(t.id, at: monday.instant(secondsAfterMidnight: 7 * 3600, zone: .utc)))
    }

    /// A paper ticket that reached the door without the printer seeing its take (it may have been taken as
    /// the presenter pulled it back): it joins the line with the scan, whatever the door answers.
    @Test func aPaperTicketAtTheDoorJoinsTheLineEvenWhenRefused() {
        var (queue, _) = mondayNight()
        let inPrinter = ticket(9, at: at(0, 6, 50))
        queue.apply(event(.ticketIssued(inPrinter), at: inPrinter.issuedAt))
        let decision = Admission.decide(scan(inPrinter), queue: queue, now: at(0, 6, 55))
        #expect(decision == .closed(opensAt: at(0, 7), ahead: 0))
        let made = Admission.record(decision, ticket: inPrinter.id, queue: queue, door: "door")
        #expect(made.first == .ticketTaken(inPrinter.id))
        for body in made { queue.apply(event(body, at: at(0, 6, 55))) }
        #expect(queue.isCalled(inPrinter.id, at: at(0, 7)))
    }

    /// Events of a day start written before store hours (no `opens`) read as before: open from the start.
    @Test func aDayStartWithoutHoursIsOpenFromItsStart() throws {
        let json = #"{"type":"dayStarted","day":20000}"#
        let body = try JSONDecoder().decode(StoreEvent.Body.self, from: Data(json.utf8))
        #expect(body == .dayStarted(BusinessDay(number: 20_000), hours: nil))
        var queue = QueueState(capacity: 1)
        queue.apply(event(body, at: at(0, 7)))
        #expect(queue.isOpen(at: at(0, 7)) && queue.isOpen(at: at(1, 3)))
        let withHours = StoreEvent.Body.dayStarted(tuesday, hours: DayHours(opens: at(0, 7), closes: at(0, 21)))
        let data = try JSONEncoder().encode(withHours)
        #expect(try JSONDecoder().decode(StoreEvent.Body.self, from: data) == withHours)
    }
}
