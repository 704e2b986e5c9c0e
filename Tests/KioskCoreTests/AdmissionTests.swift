import FoundationEssentials
import Testing

@testable import KioskCore

@Suite struct AdmissionTests: TicketFixtures {
    let store = UUID()
    let signer = TicketSigner()

    func ms(_ n: Int64) -> Timestamp { Timestamp(milliseconds: n) }

    /// Three paper tickets taken in order into a store with two places.
    func queueOfThree() -> (QueueState, [Ticket]) {
        let tickets = (1...3).map { ticket($0, at: ms(Int64($0) * 1000)) }
        var queue = QueueState(capacity: 2)
        for t in tickets {
            queue.apply(event(.ticketIssued(t), at: t.issuedAt))
            queue.apply(event(.ticketTaken(t.id), at: t.issuedAt + .milliseconds(10)))
        }
        return (queue, tickets)
    }

    @Test func theFirstInLineAreAdmittedTheRestWait() {
        var (queue, t) = queueOfThree()
        let now = ms(10_000)
        #expect(Admission.decide(scan(t[0]), queue: queue, now: now) == .admit(t[0].code))
        #expect(Admission.decide(scan(t[2]), queue: queue, now: now) == .notYourTurn(ahead: 2))
        queue.apply(event(.ticketAdmitted(t[0].id, door: "door"), at: now))
        queue.apply(event(.ticketAdmitted(t[1].id, door: "door"), at: now))
        #expect(Admission.decide(scan(t[0]), queue: queue, now: now) == .alreadyUsed(at: now))
        #expect(Admission.decide(scan(t[2]), queue: queue, now: now) == .storeFull(inside: 2, capacity: 2))
        queue.apply(event(.customerExited, at: now + .seconds(60)))
        #expect(Admission.decide(scan(t[2]), queue: queue, now: now + .seconds(61)) == .admit(t[2].code))
    }

    /// A full store tells the first in line it is full, and one who came early its place — not "store full",
    /// which sounds as if anyone leaving would let them in (issue: paper that stays true).
    @Test func aHolderWhoCameEarlyToAFullStoreIsToldTheirPlace() {
        var (queue, t) = queueOfThree()
        let fourth = ticket(4, at: ms(4000))
        queue.apply(event(.ticketIssued(fourth), at: fourth.issuedAt))
        queue.apply(event(.ticketTaken(fourth.id), at: fourth.issuedAt + .milliseconds(10)))
        let now = ms(10_000)
        queue.apply(event(.ticketAdmitted(t[0].id, door: "door"), at: now))
        queue.apply(event(.ticketAdmitted(t[1].id, door: "door"), at: now))
        #expect(queue.freePlaces == 0)
        #expect(Admission.decide(scan(t[2]), queue: queue, now: now) == .storeFull(inside: 2, capacity: 2))
        #expect(Admission.decide(scan(fourth), queue: queue, now: now) == .notYourTurn(ahead: 1))
    }

    @Test func aDecisionRecordsItsAdmissionOrItsRefusal() {
        var (queue, t) = queueOfThree()
        #expect(
            Admission.record(.admit(t[0].code), ticket: t[0].id, queue: queue, door: "door")
                == [.ticketAdmitted(t[0].id, door: "door")]
        )
        // Still in the printer for the station (its holder was quicker than the sensor): taken, then admitted.
        let quick = ticket(4, at: ms(4000))
        queue.apply(event(.ticketIssued(quick), at: quick.issuedAt))
        #expect(
            Admission.record(.admit(quick.code), ticket: quick.id, queue: queue, door: "door")
                == [.ticketTaken(quick.id), .ticketAdmitted(quick.id, door: "door")]
        )
        #expect(
            Admission.record(.notYourTurn(ahead: 2), ticket: t[2].id, queue: queue, door: "door")
                == [.scanRefused(reason: "not_your_turn", ticket: t[2].id, door: "door")]
        )
        #expect(
            Admission.record(.unreadable, ticket: nil, queue: queue, door: "door")
                == [.scanRefused(reason: "unreadable", ticket: nil, door: "door")]
        )
    }

    @Test func aCalledTicketExpiresAfterTheCallWindow() {
        let (queue, t) = queueOfThree()
        let policy = AdmissionPolicy(callWindow: .seconds(600))
        let calledAt = try! #require(queue.callTime(of: t[0].id, at: ms(5000)))
        #expect(Admission.decide(scan(t[0]), queue: queue, now: calledAt + .seconds(599), policy: policy).isAdmitted)
        #expect(Admission.decide(scan(t[0]), queue: queue, now: calledAt + .seconds(601), policy: policy) == .expired)
        #expect(Admission.noShows(queue: queue, now: calledAt + .seconds(601), policy: policy).contains(t[0].id))
    }

    @Test func bookingsHaveTheirWindow() {
        let start = ms(3_600_000)
        let booking = ticket(9, kind: .booking, at: ms(0), slot: BookingSlot(start: start, end: start + .seconds(900)))
        var queue = QueueState(capacity: 1)
        queue.apply(event(.ticketIssued(booking), at: ms(0)))
        #expect(Admission.decide(scan(booking), queue: queue, now: start - .seconds(60)) == .tooEarly(slotStart: start))
        #expect(Admission.decide(scan(booking), queue: queue, now: start + .seconds(299)) == .admit(booking.code))
        #expect(Admission.decide(scan(booking), queue: queue, now: start + .seconds(301)) == .tooLate(slotStart: start))
    }

    @Test func badCodesAreRefusedWithTheirReason() {
        let (queue, t) = queueOfThree()
        #expect(Admission.decide(scan(t[0], signer: TicketSigner()), queue: queue, now: ms(0)) == .forged)
        #expect(Admission.decide(.failure(.wrongStore(UUID())), queue: queue, now: ms(0)) == .wrongStore)
        #expect(Admission.decide(.failure(.truncated), queue: queue, now: ms(0)) == .unreadable)
        #expect(Admission.decide(scan(ticket(99, at: ms(1))), queue: queue, now: ms(0)) == .unknownTicket)
    }

    @Test func aPaperTicketTheLogThinksIsStillInThePrinterWasTornOff() {
        let t = ticket(1, at: ms(0))
        var queue = QueueState(capacity: 5)
        queue.apply(event(.ticketIssued(t), at: ms(0)))
        #expect(Admission.decide(scan(t), queue: queue, now: ms(100)) == .admit(t.code))
    }

    /// Properties over random histories: following only `admit` decisions never puts more people inside than
    /// capacity, nobody is admitted while someone earlier in line is still waiting to be called without the
    /// decision saying so, and the same log always gives the same decisions.
    @Test func admissionPropertiesOverRandomHistories() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let capacity = Int.random(in: 1...4, using: &rng)
            var queue = QueueState(capacity: capacity)
            var log: [StoreEvent] = []
            var tickets: [Ticket] = []
            var now = ms(1_000)
            func append(_ body: StoreEvent.Body) {
                let e = event(body, at: now)
                log.append(e)
                queue.apply(e)
            }
            for _ in 0..<Int.random(in: 5...60, using: &rng) {
                now = now + .milliseconds(Int64.random(in: 1...5_000, using: &rng))
                switch Int.random(in: 0..<4, using: &rng) {
                case 0:
                    let t = ticket(tickets.count + 1, at: now)
                    tickets.append(t)
                    append(.ticketIssued(t))
                    append(.ticketTaken(t.id))
                case 1:
                    guard let t = tickets.randomElement(using: &rng) else { continue }
                    let decision = Admission.decide(scan(t), queue: queue, now: now)
                    if decision.isAdmitted {
                        let earlier = queue.line(at: now).prefix { $0.id != t.id }
                        #expect(
                            earlier.count < queue.freePlaces,
                            "admitted with \(earlier.count) ahead and \(queue.freePlaces) free"
                        )
                        append(.ticketAdmitted(t.id, door: "door"))
                    }
                case 2:
                    if queue.inside > 0 { append(.customerExited) }
                default:
                    for id in Admission.noShows(queue: queue, now: now) { append(.ticketExpired(id)) }
                }
                #expect(queue.inside <= capacity)
                #expect(queue.inside >= 0)
            }
            let replayed = QueueState(capacity: capacity, events: log)
            #expect(replayed == queue)
            for t in tickets {
                #expect(
                    Admission.decide(scan(t), queue: replayed, now: now)
                        == Admission.decide(scan(t), queue: queue, now: now)
                )
            }
        }
    }

    /// The line is kept sorted incrementally; it must always equal sorting the day's tickets from scratch
    /// (joined time, then id as its string), whatever mix of paper, app tickets, bookings in the future,
    /// admissions, expiries and cancellations the log holds; and the call times stamped incrementally must
    /// equal stamping the whole called prefix after every event.
    @Test func theKeptLineEqualsSortingFromScratch() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var queue = QueueState(capacity: Int.random(in: 1...6, using: &rng))
            var tickets: [Ticket] = []
            var naiveCalledAt: [TicketID: Timestamp] = [:]
            var now = ms(1_000_000)
            for _ in 0..<Int.random(in: 10...80, using: &rng) {
                // Same-millisecond events are common: ties must break by id.
                now = now + .milliseconds(Int64.random(in: 0...3, using: &rng))
                var body: StoreEvent.Body
                switch Int.random(in: 0..<7, using: &rng) {
                case 0:
                    body = .ticketIssued(ticket(tickets.count + 1, at: now))
                case 1:
                    body = .ticketIssued(ticket(tickets.count + 1, kind: .app, at: now))
                case 2:
                    let start = now + .milliseconds(Int64.random(in: -5...20, using: &rng))
                    body = .ticketIssued(
                        ticket(
                            tickets.count + 1,
                            kind: .booking,
                            at: now,
                            slot: BookingSlot(start: start, end: start + .seconds(900))
                        )
                    )
                case 3:
                    guard let t = tickets.randomElement(using: &rng) else { continue }
                    body = .ticketTaken(t.id)
                case 4:
                    guard let t = tickets.randomElement(using: &rng) else { continue }
                    body = .ticketAdmitted(t.id, door: "door")
                case 5:
                    guard let t = tickets.randomElement(using: &rng) else { continue }
                    body = Bool.random(using: &rng) ? .ticketExpired(t.id) : .ticketCancelled(t.id)
                default:
                    body = .customerExited
                }
                if case .ticketIssued(let t, _) = body { tickets.append(t) }
                queue.apply(event(body, at: now))
                // Calls are stamped from a cursor into the line; stamping the whole called prefix is the spec.
                for t in queue.called(at: now) where naiveCalledAt[t.id] == nil { naiveCalledAt[t.id] = now }
                #expect(Dictionary(uniqueKeysWithValues: queue.calledAt.map { ($0.key, $0.value) }) == naiveCalledAt)

                let probe = now + .milliseconds(Int64.random(in: -2...10, using: &rng))
                let naive = queue.entries.values.compactMap { entry -> (Timestamp, Ticket)? in
                    if case .waiting(let joined) = entry.stage { return (joined, entry.ticket) }
                    return nil
                }
                .sorted { $0.0 == $1.0 ? $0.1.id.uuidString < $1.1.id.uuidString : $0.0 < $1.0 }
                #expect(queue.waiting.map(\.id) == naive.map(\.1.id))
                for kind in TicketKind.allCases {
                    #expect(queue.waitingCount(of: kind) == naive.count { $0.1.kind == kind })
                }
                let naiveLine = naive.filter { $0.0 <= probe }.map(\.1.id)
                #expect(queue.line(at: probe).map(\.id) == naiveLine)
                #expect(queue.called(at: probe).map(\.id) == Array(naiveLine.prefix(queue.freePlaces)))
                for t in tickets {
                    #expect(queue.position(of: t.id, at: probe) == naiveLine.firstIndex(of: t.id))
                    #expect(queue.peopleAhead(of: t.id) == (naive.firstIndex { $0.1.id == t.id } ?? naive.count))
                }
            }
        }
    }
}
