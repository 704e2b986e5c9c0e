import FoundationEssentials
import Testing

@testable import KioskCore

/// The end of a business day in the fold: the evening's line and occupancy do not reach the next morning.
@Suite struct BusinessDayTests: TicketFixtures {
    let store = UUID()
    let signer = TicketSigner()
    /// Day 20 000 (2024-10-04) opens at 07:00 UTC.
    let day = BusinessDay(number: 20_000)
    var opening: Timestamp { day.start(openingTime: 7 * 3600, zone: .utc) }

    func at(_ hours: Double, dayOffset: Int64 = 0) -> Timestamp {
        opening + .milliseconds(Int64(hours * 3_600_000) + dayOffset * 86_400_000)
    }

    /// The evening of day 20 000: six tickets taken (14:50), three admitted into a store of three.
    func evening() -> (QueueState, [Ticket]) {
        var queue = QueueState(capacity: 3)
        let tickets = (1...6).map { ticket($0, at: at(14.8 + Double($0) / 100)) }
        for t in tickets {
            queue.apply(event(.ticketIssued(t), at: t.issuedAt))
            queue.apply(event(.ticketTaken(t.id), at: t.issuedAt + .seconds(5)))
        }
        for t in tickets.prefix(3) { queue.apply(event(.ticketAdmitted(t.id, door: "door"), at: at(14.95))) }
        return (queue, tickets)
    }

    /// The day as tickets, pages and logs write it: zero-padded month and day.
    @Test func aDayIsWrittenYearMonthDay() {
        #expect(BusinessDay(year: 2026, month: 3, day: 9).dateText == "2026-03-09")
        #expect(BusinessDay(number: 20_000).dateText == "2024-10-04")
        #expect(BusinessDay(year: 2026, month: 12, day: 31).dateText == "2026-12-31")
    }

    @Test func theDayStartedTimeIsTheOpeningInstant() {
        #expect(opening == Timestamp(milliseconds: (20_000 * 86_400 + 7 * 3600) * 1000))
        #expect(BusinessDay(at: opening, openingTime: 7 * 3600, utcOffset: 0) == day)
        #expect(BusinessDay(at: opening - .milliseconds(1), openingTime: 7 * 3600, utcOffset: 0).number == 19_999)
        // Rome in winter (UTC+1): the day opens at 06:00 UTC.
        #expect(
            day.start(openingTime: 7 * 3600, zone: StoreTimeZone(fixedOffsetSeconds: 3600)) == opening - .seconds(3600)
        )
    }

    @Test func aNewDayStartsWithNobodyInsideAndNobodyWaiting() {
        var (queue, tickets) = evening()
        #expect(queue.inside == 3 && queue.waiting.count == 3)
        let next = BusinessDay(number: day.number + 1)
        queue.apply(StoreEvent.dayStarted(next, store: store, device: "door", at: at(0, dayOffset: 1)))
        #expect(queue.inside == 0)
        #expect(queue.waiting.isEmpty)
        #expect(queue.insideAtLastDayEnd == 3)
        #expect(queue.day == next)
        // Yesterday's waiting ticket is refused as yesterday's, not as "store full".
        let morning = at(1.1, dayOffset: 1)
        #expect(Admission.decide(scan(tickets[4]), queue: queue, now: morning) == .previousDay)
        #expect(AdmissionDecision.previousDay.description.contains("earlier day"))
        // The day's finished tickets are forgotten (a queue that runs for months holds one day), and their
        // codes are still told apart from unknown ones.
        #expect(queue.entries.isEmpty && queue.calledAt.isEmpty)
        #expect(Admission.decide(scan(tickets[0]), queue: queue, now: morning) == .previousDay)
        #expect(
            Admission.decide(scan(ticket(99, at: at(1, dayOffset: 1))), queue: queue, now: morning) == .unknownTicket
        )
        // The first customer of the day is admitted.
        let first = ticket(1, at: at(1, dayOffset: 1))
        queue.apply(event(.ticketIssued(first), at: first.issuedAt))
        queue.apply(event(.ticketTaken(first.id), at: first.issuedAt + .seconds(3)))
        #expect(Admission.decide(scan(first), queue: queue, now: morning) == .admit(first.code))
    }

    @Test func todaysBookingsAndTheTicketInThePrinterStay() {
        var (queue, _) = evening()
        let slot = BookingSlot(start: at(2, dayOffset: 1), end: at(2.5, dayOffset: 1))
        let booking = ticket(90, kind: .booking, at: at(10), slot: slot)
        let inPrinter = ticket(7, at: at(14.99))
        queue.apply(event(.ticketIssued(booking), at: booking.issuedAt))
        queue.apply(event(.ticketIssued(inPrinter), at: inPrinter.issuedAt))
        queue.apply(
            StoreEvent.dayStarted(
                BusinessDay(number: day.number + 1),
                store: store,
                device: "d",
                at: at(0, dayOffset: 1)
            )
        )
        #expect(queue.stage(of: booking.id) == .waiting(joined: slot.start))
        #expect(queue.stage(of: inPrinter.id) == .inPrinter)
        #expect(Admission.decide(scan(booking), queue: queue, now: slot.start) == .admit(booking.code))
    }

    /// Every device writes the day's start with the same id; applied twice, or an older day after a newer
    /// one, it changes nothing.
    @Test func theSameDayStartedFromTwoDevicesIsOneEvent() {
        let next = BusinessDay(number: day.number + 1)
        let a = StoreEvent.dayStarted(next, store: store, device: "printer", at: at(0, dayOffset: 1))
        let b = StoreEvent.dayStarted(next, store: store, device: "server", at: at(0, dayOffset: 1))
        #expect(a.id == b.id)
        #expect(a.id != StoreEvent.dayStarted(next, store: UUID(), device: "printer", at: a.time).id)
        #expect(a.id != StoreEvent.dayStarted(day, store: store, device: "printer", at: opening).id)
        var (queue, _) = evening()
        queue.apply(a)
        let once = queue
        queue.apply(b)
        queue.apply(StoreEvent.dayStarted(day, store: store, device: "late", at: opening))
        #expect(queue == once)
    }

    /// A new day's admission that reaches the log before the `dayStarted` another device wrote is kept.
    @Test func whatHappenedAfterTheStartCountsEvenWhenLoggedBeforeIt() {
        var (queue, _) = evening()
        let morning = ticket(1, kind: .app, at: at(0.5, dayOffset: 1))
        queue.apply(event(.ticketIssued(morning), at: morning.issuedAt))
        queue.apply(event(.ticketAdmitted(morning.id, door: "door"), at: at(0.6, dayOffset: 1)))
        #expect(queue.inside == 4)  // the log's order put the morning's admission before the day's start
        queue.apply(
            StoreEvent.dayStarted(
                BusinessDay(number: day.number + 1),
                store: store,
                device: "d",
                at: at(0, dayOffset: 1)
            )
        )
        #expect(queue.inside == 1)
        #expect(queue.insideAtLastDayEnd == 3)
    }

    /// A kiosk cut off overnight pushes yesterday evening's take after the new day started: that ticket
    /// does not join today's line (it would stand at its head, ahead of everyone), it is over with its day.
    @Test func aTakeOfYesterdayThatArrivesTodayDoesNotJoinTodaysLine() {
        var (queue, _) = evening()
        let lastOfTheEvening = ticket(8, at: at(14.9))
        queue.apply(event(.ticketIssued(lastOfTheEvening), at: lastOfTheEvening.issuedAt))
        queue.apply(
            StoreEvent.dayStarted(
                BusinessDay(number: day.number + 1),
                store: store,
                device: "d",
                at: at(0, dayOffset: 1)
            )
        )
        let first = ticket(1, kind: .app, at: at(0.2, dayOffset: 1))
        queue.apply(event(.ticketIssued(first), at: first.issuedAt))
        var late = event(.ticketTaken(lastOfTheEvening.id), at: at(14.95))
        late.receivedAt = at(0.5, dayOffset: 1)
        queue.apply(late)
        #expect(queue.stage(of: lastOfTheEvening.id) == .expired)
        #expect(queue.waiting.map(\.id) == [first.id])
    }

    /// A booking of yesterday, used and then forgotten with its day, is refused as an earlier day's from its
    /// code alone (its day is its slot's, as for a booking the queue still holds).
    @Test func aForgottenBookingOfAnEarlierDayIsRefusedAsSuch() {
        var (queue, _) = evening()
        let slot = BookingSlot(start: at(14), end: at(14.25))
        let booking = ticket(90, kind: .booking, at: at(2), slot: slot)
        queue.apply(event(.ticketIssued(booking), at: booking.issuedAt))
        queue.apply(event(.ticketAdmitted(booking.id, door: "door"), at: at(14.1)))
        queue.apply(
            StoreEvent.dayStarted(
                BusinessDay(number: day.number + 1),
                store: store,
                device: "d",
                at: at(0, dayOffset: 1)
            )
        )
        #expect(queue.entries[booking.id] == nil)
        let code = TicketCodec.encode(
            booking,
            validFrom: slot.start,
            validUntil: slot.start + .seconds(300),
            signer: signer,
            prefix: prefix
        )
        let claims = Result { () throws(TicketCodec.DecodeError) in
            try TicketCodec.decode(code, prefix: prefix, keyRing: KeyRing([signer.publicKey]), store: store)
        }
        #expect(Admission.decide(claims, queue: queue, now: at(1, dayOffset: 1)) == .previousDay)
    }

    @Test func theEventRoundTripsThroughItsWireForm() throws {
        let event = StoreEvent.dayStarted(day, store: store, device: "d", at: opening)
        let data = try JSONEncoder().encode(event)
        #expect(String(decoding: data, as: UTF8.self).contains(#""type":"dayStarted""#))
        #expect(try JSONDecoder().decode(StoreEvent.self, from: data) == event)
    }
}
