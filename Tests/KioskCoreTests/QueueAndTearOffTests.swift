import FoundationEssentials
import Testing

@testable import KioskCore

@Suite struct QueueStateTests {
    let store = UUID()

    func event(_ body: StoreEvent.Body, at ms: Int64) -> StoreEvent {
        StoreEvent(
            id: .v7(at: Timestamp(milliseconds: ms)),
            store: store,
            device: "d",
            time: Timestamp(milliseconds: ms),
            body: body
        )
    }

    func paper(_ n: Int, at ms: Int64) -> Ticket {
        Ticket(
            id: .v7(at: Timestamp(milliseconds: ms)),
            store: store,
            kind: .paper,
            code: TicketCode(prefix: "A", number: n),
            issuedAt: Timestamp(milliseconds: ms),
            issuer: "d"
        )
    }

    @Test func paperTicketsJoinWhenTakenNotWhenPrinted() {
        let t1 = paper(1, at: 0)
        let t2 = paper(2, at: 10)
        var queue = QueueState(capacity: 1)
        queue.apply(event(.ticketIssued(t1), at: 0))
        queue.apply(event(.ticketIssued(t2), at: 10))
        #expect(queue.waiting.isEmpty)
        queue.apply(event(.ticketTaken(t2.id), at: 20))
        queue.apply(event(.ticketTaken(t1.id), at: 30))
        #expect(queue.waiting.map(\.code.number) == [2, 1])  // by tear-off time
        #expect(queue.peopleAhead(of: t1.id) == 1)
        queue.apply(event(.ticketAdmitted(t2.id, door: "door"), at: 40))
        queue.apply(event(.ticketAdmitted(t2.id, door: "door"), at: 41))  // twice counts once
        #expect(queue.inside == 1 && queue.freePlaces == 0)
        queue.apply(event(.customerExited, at: 50))
        queue.apply(event(.customerExited, at: 51))
        #expect(queue.inside == 0)  // never below zero
    }

    /// A take that reached the server late (stamped `receivedAt`) joins the line when it arrived: behind
    /// everyone already waiting, whatever time the kiosk gave it.
    @Test func aLateTakeJoinsWhenItArrived() {
        let early = paper(1, at: 0)
        let later = paper(2, at: 100)
        var queue = QueueState(capacity: 0)
        queue.apply(event(.ticketIssued(early), at: 0))
        queue.apply(event(.ticketIssued(later), at: 100))
        queue.apply(event(.ticketTaken(later.id), at: 200))
        var late = event(.ticketTaken(early.id), at: 10)
        late.receivedAt = Timestamp(milliseconds: 300)
        queue.apply(late)
        #expect(queue.waiting.map(\.code.number) == [2, 1])
        #expect(queue.stage(of: early.id) == .waiting(joined: Timestamp(milliseconds: 300)))
        // Without the stamp, the kiosk's time would have put it first.
        var trusting = QueueState(capacity: 0)
        for e in [event(.ticketIssued(early), at: 0), event(.ticketIssued(later), at: 100)] { trusting.apply(e) }
        trusting.apply(event(.ticketTaken(later.id), at: 200))
        trusting.apply(event(.ticketTaken(early.id), at: 10))
        #expect(trusting.waiting.map(\.code.number) == [1, 2])
    }

    @Test func eventsAboutUnknownTicketsAreCountedNotFatal() {
        var queue = QueueState(capacity: 3)
        queue.apply(event(.ticketTaken(UUID()), at: 0))
        #expect(queue.orphanEvents == 1)
    }

    /// Property: the same log always gives the same state, and occupancy stays within 0...admissions.
    @Test func foldIsDeterministicOverRandomLogs() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var tickets: [Ticket] = []
            var log: [StoreEvent] = []
            for step in 0..<Int.random(in: 1...60, using: &rng) {
                let ms = Int64(step * 10)
                switch Int.random(in: 0..<6, using: &rng) {
                case 0, 1:
                    let t = paper(tickets.count + 1, at: ms)
                    tickets.append(t)
                    log.append(event(.ticketIssued(t), at: ms))
                case 2: if let t = tickets.randomElement(using: &rng) { log.append(event(.ticketTaken(t.id), at: ms)) }
                case 3:
                    if let t = tickets.randomElement(using: &rng) {
                        log.append(event(.ticketAdmitted(t.id, door: "x"), at: ms))
                    }
                case 4: log.append(event(.customerExited, at: ms))
                default:
                    if let t = tickets.randomElement(using: &rng) { log.append(event(.ticketCancelled(t.id), at: ms)) }
                }
            }
            let a = QueueState(capacity: 5, events: log)
            let b = QueueState(capacity: 5, events: log)
            #expect(a == b)
            let admissions = Set(log.compactMap { if case .ticketAdmitted(let id, _) = $0.body { id } else { nil } })
                .count
            #expect(a.inside >= 0 && a.inside <= admissions)
            #expect(Set(a.waiting.map(\.id)).count == a.waiting.count)
        }
    }

    @Test func aWaitIsShownInWholeMinutesRoundedUp() {
        #expect(Duration.seconds(61).minutesRoundedUp == 2)
        #expect(Duration.seconds(60).minutesRoundedUp == 1)
        #expect(Duration.zero.minutesRoundedUp == 0)
    }
}

@Suite struct TearOffMachineTests {
    let id = UUID()
    func ms(_ n: Int) -> Duration { .milliseconds(n) }

    @Test func takenAfterPresentThenAbsentForTheDebounce() {
        var machine = TearOffMachine(debounce: ms(30))
        #expect(machine.handle(.printed(id, at: ms(0))).isEmpty)
        #expect(machine.handle(.sensor(present: true, at: ms(10))).isEmpty)
        #expect(machine.handle(.sensor(present: false, at: ms(100))) == [.wake(at: ms(130))])
        #expect(machine.handle(.tick(at: ms(120))) == [.wake(at: ms(130))])
        #expect(machine.handle(.tick(at: ms(130))) == [.taken(id)])
        #expect(machine.waitingTicket == nil)
        #expect(machine.handle(.sensor(present: false, at: ms(200))).isEmpty)  // nothing waits: nothing to take
    }

    @Test func aFlickerShorterThanTheDebounceIsIgnored() {
        var machine = TearOffMachine(debounce: ms(30))
        _ = machine.handle(.printed(id, at: ms(0)))
        _ = machine.handle(.sensor(present: true, at: ms(5)))
        _ = machine.handle(.sensor(present: false, at: ms(50)))
        #expect(machine.handle(.sensor(present: true, at: ms(60))).isEmpty)
        #expect(machine.handle(.tick(at: ms(200))).isEmpty)
        #expect(machine.waitingTicket == id)
    }

    @Test func aTicketTheSensorNeverSawCountsAfterTheUnseenTimeout() {
        var machine = TearOffMachine(debounce: ms(30), unseenTimeout: .seconds(3))
        _ = machine.handle(.printed(id, at: ms(0)))
        #expect(machine.handle(.sensor(present: false, at: ms(100))) == [.wake(at: ms(3000))])
        #expect(machine.handle(.tick(at: ms(3000))) == [.taken(id)])
    }

    /// A ticket grabbed before the first look (never seen present) must not cost the next customer the
    /// 2 s promise: by default it counts as taken 1 s after the print, leaving a second for the next print.
    @Test func aQuickGrabIsDecidedWithinOneSecondByDefault() {
        var machine = TearOffMachine()
        _ = machine.handle(.printed(id, at: ms(0)))
        #expect(machine.handle(.sensor(present: false, at: ms(20))) == [.wake(at: ms(1000))])
        #expect(machine.handle(.tick(at: ms(999))) == [.wake(at: ms(1000))])
        #expect(machine.handle(.tick(at: ms(1000))) == [.taken(id)])
    }

    @Test func controlAPITakeCountsAtOnce() {
        var machine = TearOffMachine()
        _ = machine.handle(.printed(id, at: ms(0)))
        #expect(machine.handle(.takeRequested(at: ms(1))) == [.taken(id)])
        #expect(machine.handle(.takeRequested(at: ms(2))).isEmpty)
    }
}

@Suite struct RetractRuleTests {
    let today = BusinessDay(number: 20_000)

    @Test func anEarlierDaysTicketGoesBackInWhateverTheTimer() {
        for rule in [RetractRule(), RetractRule(after: .seconds(60))] {
            let yesterday = BusinessDay(number: today.number - 1)
            #expect(rule.reason(presentedAt: .zero, now: .seconds(1), issuedOn: yesterday, today: today) == .earlierDay)
            #expect(rule.reason(presentedAt: .zero, now: .seconds(1), issuedOn: today, today: today) == nil)
        }
    }

    @Test func aTicketNotTakenGoesBackInOnlyWithATimerAndOnlyWhenDue() {
        #expect(RetractRule().reason(presentedAt: .zero, now: .seconds(86_000), issuedOn: today, today: today) == nil)
        let rule = RetractRule(after: .seconds(60))
        #expect(rule.reason(presentedAt: .seconds(5), now: .seconds(64), issuedOn: today, today: today) == nil)
        #expect(rule.reason(presentedAt: .seconds(5), now: .seconds(65), issuedOn: today, today: today) == .notTaken)
    }
}
