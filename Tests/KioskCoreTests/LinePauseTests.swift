import FoundationEssentials
import TestSupport
import Testing

@testable import KioskCore

/// Staff pause the calls (``LinePause``): nobody is called or admitted by ticket while a pause holds, the line
/// keeps its order, a ticket called before it gets a whole call window from its end, and the fold agrees whatever
/// order the events reach a log in.
@Suite struct LinePauseTests: TicketFixtures {
    let store = UUID()
    let signer = TicketSigner()
    let opens = Timestamp(seconds: 1_790_000_000)
    let policy = AdmissionPolicy(callWindow: .seconds(600))

    /// A store of `capacity` open from `opens`, with `waiting` app tickets taken a second apart.
    func line(_ waiting: Int, capacity: Int = 2) -> (state: QueueState, tickets: [Ticket], log: [StoreEvent]) {
        var log = [
            event(.dayStarted(BusinessDay(number: 20_700), hours: DayHours(opens: opens, closes: nil)), at: opens)
        ]
        let tickets = (0..<waiting).map { ticket($0 + 1, kind: .app, at: opens + .seconds(Int64($0) + 1)) }
        log += tickets.map { event(.ticketIssued($0), at: $0.issuedAt) }
        return (QueueState(capacity: capacity, events: log), tickets, log)
    }

    @Test func aPauseCallsNobodyAdmitsNobodyAndExpiresNobody() {
        var (state, tickets, _) = line(4)
        let paused = opens + .seconds(60)
        state.apply(event(.linePaused(reason: "restock", until: paused + .seconds(1_800), by: "anna"), at: paused))
        // Long past the call window of the two called before it: nobody expires, nobody is let in.
        for minutes in [0, 5, 15, 29] {
            let now = paused + .seconds(Int64(minutes) * 60)
            #expect(state.isPaused(at: now) && state.calledCount(at: now) == 0)
            #expect(Admission.noShows(queue: state, now: now, policy: policy).isEmpty)
            #expect(
                Admission.decide(scan(tickets[0]), queue: state, now: now, policy: policy)
                    == .paused(until: paused + .seconds(1_800), ahead: 0)
            )
        }
        // At its end the first two are called again, each with a whole call window from then.
        let end = paused + .seconds(1_800)
        #expect(!state.isPaused(at: end) && state.calledCount(at: end) == 2)
        #expect(state.callTime(of: tickets[0].id, at: end + .seconds(1)) == end)
        #expect(Admission.decide(scan(tickets[1]), queue: state, now: end + .seconds(599), policy: policy).isAdmitted)
        #expect(Admission.noShows(queue: state, now: end + .seconds(599), policy: policy).isEmpty)
        #expect(Admission.noShows(queue: state, now: end + .seconds(601), policy: policy).count == 2)
        // Staff can still let someone out, and let people in.
        state.apply(event(.letIn(people: 1, reason: "a carer", by: "anna"), at: paused + .seconds(90)))
        #expect(state.inside == 1)
    }

    @Test func staffResumeBeforeThePausesEndAndADayThatStartsAfreshEndsIt() {
        var (state, tickets, _) = line(1)
        let paused = opens + .seconds(60)
        state.apply(event(.linePaused(reason: "spill", until: nil, by: "door-1"), at: paused))
        #expect(state.isPaused(at: paused + .seconds(86_000)), "until resumed")
        state.apply(event(.lineResumed(by: "anna"), at: paused + .seconds(120)))
        #expect(
            !state.isPaused(at: paused + .seconds(120)) && state.isCalled(tickets[0].id, at: paused + .seconds(121))
        )
        #expect(state.pauses.latest?.resumedBy == "anna")

        state.apply(event(.linePaused(reason: "alarm", until: nil, by: "anna"), at: paused + .seconds(300)))
        var kept = state
        let next = opens + .seconds(86_400)
        state.apply(
            event(.dayStarted(BusinessDay(number: 20_701), hours: DayHours(opens: next, closes: nil)), at: next)
        )
        #expect(!state.isPaused(at: next + .seconds(1)) && state.pauses.latest == nil)
        kept.apply(
            event(
                .dayStarted(BusinessDay(number: 20_701), hours: DayHours(opens: next, closes: nil), keepsLine: true),
                at: next
            )
        )
        #expect(kept.isPaused(at: next + .seconds(1)), "a store open across the turn keeps its pause")
    }

    /// A booking whose lateness the pause covered may come in within its lateness from the pause's end.
    @Test func aBookingKeepsItsLatenessAfterAPause() {
        var (state, _, _) = line(0)
        let start = opens + .seconds(600)
        let booking = ticket(9, kind: .booking, at: opens, slot: BookingSlot(start: start, end: start + .seconds(900)))
        state.apply(event(.ticketIssued(booking), at: opens))
        state.apply(
            event(.linePaused(reason: "x", until: start + .seconds(1_200), by: "anna"), at: start - .seconds(60))
        )
        #expect(
            Admission.decide(scan(booking), queue: state, now: start + .seconds(60), policy: policy).reason == "paused"
        )
        let end = start + .seconds(1_200)
        #expect(Admission.decide(scan(booking), queue: state, now: end + .seconds(299), policy: policy).isAdmitted)
        #expect(
            Admission.decide(scan(booking), queue: state, now: end + .seconds(301), policy: policy)
                == .tooLate(slotStart: start)
        )
    }

    /// A wait told during a pause with an end counts what is left of it; one told without a pause does not.
    @Test func aWaitToldDuringAPauseCountsItsRest() {
        let (state, _, _) = line(6)
        let estimator = WaitEstimator(model: .prior(averageVisit: .seconds(600)), callWindow: .seconds(600))
        let now = opens + .seconds(60)
        let before = estimator.wait(position: 6, in: state, at: now)
        var paused = state
        paused.apply(event(.linePaused(reason: "x", until: now + .seconds(1_200), by: "anna"), at: now))
        let during = estimator.wait(position: 6, in: paused, at: now)
        #expect(during.point >= before.point + .seconds(1_170), "\(before.point) → \(during.point)")
        #expect(estimator.wait(position: 0, in: paused, at: now).point >= .seconds(1_170))
    }

    @Test func valuesOutOfRangeAreNamed() {
        let now = opens
        let cases: [(StoreEvent.Body, String?)] = [
            (.linePaused(reason: "restock", until: now + .seconds(60), by: "anna"), nil),
            (.linePaused(reason: "restock", until: nil, by: "anna"), nil),
            (.linePaused(reason: "", until: nil, by: "anna"), "reason"),
            (.linePaused(reason: String(repeating: "é", count: 121), until: nil, by: "anna"), "reason"),
            (.linePaused(reason: "x", until: now, by: "anna"), "until"),
            (.linePaused(reason: "x", until: now + .seconds(12 * 3_600 + 1), by: "anna"), "until"),
            (.linePaused(reason: "x", until: nil, by: ""), "by"),
            (.lineResumed(by: String(repeating: "x", count: 65)), "by"),
            (.lineResumed(by: "door-1"), nil),
        ]
        for (body, field) in cases { #expect(LinePause.problem(body, at: now)?.field == field, "\(body)") }
    }

    /// Random days of calls, admissions, exits, pauses and resumes (some stamped back), each folded in several
    /// orders: while a pause holds nobody is called and no scan admits; the pauses fold to the same state in
    /// every order.
    @Test func pausesNeverAdmitAndDoNotDependOnTheLogsOrder() {
        for seed in 1...200 {
            var rng = SplitMix64(seed: UInt64(seed))
            var (_, tickets, log) = line(
                Int.random(in: 1...8, using: &rng),
                capacity: Int.random(in: 1...3, using: &rng)
            )
            var time = opens + .seconds(60)
            for _ in 0..<Int.random(in: 1...12, using: &rng) {
                time = time + .seconds(Int64.random(in: 1...900, using: &rng))
                let stamped = time - .seconds(Int64.random(in: 0...1, using: &rng) * 400)
                let body: StoreEvent.Body =
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0:
                        .linePaused(
                            reason: "r\(seed)",
                            until: Bool.random(using: &rng)
                                ? stamped + .seconds(Int64.random(in: 60...3_600, using: &rng)) : nil,
                            by: "anna"
                        )
                    case 1: .lineResumed(by: "door-1")
                    default: .customerExited
                    }
                log.append(event(body, at: stamped))
            }
            let folded = QueueState(capacity: 2, events: log)
            for _ in 0..<3 {
                var shuffled = Array(log.dropFirst())
                shuffled.shuffle(using: &rng)
                let other = QueueState(capacity: 2, events: [log[0]] + shuffled)
                #expect(other.pauses.latest == folded.pauses.latest, "seed \(seed)")
            }
            var probe = time
            for _ in 0..<20 {
                probe = probe - .seconds(Int64.random(in: 0...600, using: &rng))
                guard folded.isPaused(at: probe) else { continue }
                #expect(folded.calledCount(at: probe) == 0, "seed \(seed)")
                for t in tickets {
                    #expect(!Admission.decide(scan(t), queue: folded, now: probe, policy: policy).isAdmitted)
                }
            }
        }
    }
}
