import FoundationEssentials
import TestSupport
import Testing

@testable import KioskCore

/// Staff correct the count inside and let people in without a ticket (``StaffCount``): the fold counts from the
/// day's latest correction, whatever order its events reach the log in, and never below zero.
@Suite struct StaffCountTests: TicketFixtures {
    let store = UUID()
    let signer = TicketSigner()
    let opens = Timestamp(seconds: 1_790_000_000)

    /// A store open from `opens` with `admitted` tickets let in, a minute apart from its opening.
    func open(admitting admitted: Int) -> (state: QueueState, log: [StoreEvent]) {
        var log = [
            event(.dayStarted(BusinessDay(number: 20_700), hours: DayHours(opens: opens, closes: nil)), at: opens)
        ]
        for n in 0..<admitted {
            let t = ticket(n + 1, kind: .app, at: opens + .seconds(Int64(n) * 60))
            log.append(event(.ticketIssued(t), at: t.issuedAt))
            log.append(event(.ticketAdmitted(t.id, door: "door"), at: t.issuedAt + .seconds(10)))
        }
        return (QueueState(capacity: 50, events: log), log)
    }

    @Test func theDoorsCountOnFromStaffsCount() {
        var (state, _) = open(admitting: 3)
        #expect(state.inside == 3)
        let at = opens + .seconds(3_600)
        state.apply(event(.countCorrected(inside: 17, by: "anna"), at: at))
        #expect(state.inside == 17)
        #expect(state.correction == CountCorrection(at: at, inside: 17, by: "anna"))
        state.apply(event(.letIn(people: 2, reason: "a carer and a child", by: "anna"), at: at + .seconds(5)))
        state.apply(event(.customerExited, at: at + .seconds(9)))
        #expect(state.inside == 18)
    }

    /// A door offline for ten minutes pushes an admission and two exits stamped before the count staff made
    /// meanwhile: the ticket is admitted, the count stays what staff counted.
    @Test func eventsStampedBeforeTheCountChangeStagesNotTheCount() throws {
        var (state, _) = open(admitting: 1)
        let late = ticket(9, kind: .app, at: opens + .seconds(100))
        state.apply(event(.ticketIssued(late), at: late.issuedAt))
        let counted = opens + .seconds(1_200)
        state.apply(event(.countCorrected(inside: 5, by: "anna"), at: counted))
        state.apply(event(.ticketAdmitted(late.id, door: "door-2"), at: counted - .seconds(300)))
        state.apply(event(.customerExited, at: counted - .seconds(200)))
        state.apply(event(.customerExited, at: counted - .seconds(100)))
        #expect(state.inside == 5)
        guard case .admitted = try #require(state.stage(of: late.id)) else {
            Issue.record("the late admission did not admit its ticket")
            return
        }
    }

    /// A count pushed late by a door counts what was stamped after it; an older count than the day's latest is
    /// kept for the record and changes nothing.
    @Test func aLateCountCountsWhatCameAfterItAndAnOlderOneNothing() {
        var (state, _) = open(admitting: 4)  // admitted at +10 s, +70, +130, +190
        state.apply(event(.countCorrected(inside: 10, by: "door"), at: opens + .seconds(100)))
        #expect(state.inside == 12, "10 counted, then the two admitted after it")
        state.apply(event(.countCorrected(inside: 1, by: "door"), at: opens + .seconds(50)))
        #expect(state.inside == 12)
        #expect(state.correction?.inside == 10)
    }

    /// Random days of admissions, exits, people let in and counts (some stamped back), each log folded in
    /// several orders: the count is never negative, and where no exit met an empty store, every order gives
    /// the latest count plus what came after it.
    @Test func countsNeverGoNegativeAndDoNotDependOnTheLogsOrder() {
        for seed in 1...200 {
            var rng = SplitMix64(seed: UInt64(seed))
            var (_, log) = open(admitting: Int.random(in: 0...5, using: &rng))
            var time = opens + .seconds(600)
            for _ in 0..<Int.random(in: 1...40, using: &rng) {
                time = time + .seconds(Int64.random(in: 1...120, using: &rng))
                let back = Duration.seconds(Int64.random(in: 0...2, using: &rng) * 150)
                let body: StoreEvent.Body =
                    switch Int.random(in: 0..<10, using: &rng) {
                    case 0..<3: .customerExited
                    case 3..<5: .letIn(people: Int.random(in: 1...3, using: &rng), reason: "x", by: "m")
                    case 5..<7: .countCorrected(inside: Int.random(in: -2...12, using: &rng), by: "m")
                    default: .ticketAdmitted(ticket(0, at: time).id, door: "door")  // unknown: an orphan
                    }
                log.append(event(body, at: time - back))
            }
            var inOrder = QueueState(capacity: 50)
            for event in log {
                inOrder.apply(event)
                #expect(inOrder.inside >= 0, "seed \(seed)")
            }
            let latest = log.compactMap { e -> (Timestamp, Int)? in
                if case .countCorrected(let n, _) = e.body { (e.time, n) } else { nil }
            }.max { $0.0 < $1.0 }
            guard let latest else { continue }
            let after = log.filter { $0.time >= latest.0 }
            let added = after.reduce(0) { sum, e in
                if case .letIn(let p, _, _) = e.body { sum + p } else { sum }
            }
            let left = after.count { $0.body == .customerExited }
            // Exits that never met an empty store: then the count is exact in any order.
            guard max(latest.1, 0) >= left else { continue }
            let expected = max(latest.1, 0) + added - left
            for _ in 0..<3 {
                // Another log order: the day's start first, the rest shuffled.
                let shuffled = [log[0]] + log.dropFirst().shuffled(using: &rng)
                let state = QueueState(capacity: 50, events: shuffled)
                #expect(state.inside == expected, "seed \(seed): \(state.inside) ≠ \(expected)")
            }
        }
    }

    /// A day that starts afresh counts from its own start: yesterday's count is not today's.
    @Test func aNewDayForgetsYesterdaysCount() {
        var (state, _) = open(admitting: 2)
        state.apply(event(.countCorrected(inside: 30, by: "anna"), at: opens + .seconds(600)))
        let tomorrow = opens + .seconds(86_400)
        state.apply(
            event(.dayStarted(BusinessDay(number: 20_701), hours: DayHours(opens: tomorrow, closes: nil)), at: tomorrow)
        )
        #expect(state.inside == 0 && state.correction == nil)
        #expect(state.insideAtLastDayEnd == 30)
    }

    /// People let in leave by the same exit: the traffic the visit length is learnt from counts them in, or
    /// their exits would read as visits of those admitted ending early.
    @Test func peopleLetInAreVisitsTheEstimateLearnsFrom() throws {
        let (state, _) = open(admitting: 0)
        var traffic = StoreTraffic()
        let at = opens + .seconds(125)
        traffic.observe(event(.letIn(people: 3, reason: "a delivery", by: "m"), at: at), before: state)
        traffic.observe(event(.countCorrected(inside: 9, by: "m"), at: at), before: state)
        let day = try #require(traffic.days.values.first)
        #expect(day.admissions[Int(at.milliseconds / 60_000 % 1_440)] == 3 && day.admissions.reduce(0, +) == 3)
    }

    @Test func valuesOutOfBoundsAreNamed() {
        #expect(StaffCount.problem(.countCorrected(inside: 17, by: "anna")) == nil)
        #expect(StaffCount.problem(.countCorrected(inside: -1, by: "anna"))?.field == "inside")
        #expect(StaffCount.problem(.countCorrected(inside: 100_001, by: "anna"))?.field == "inside")
        #expect(StaffCount.problem(.countCorrected(inside: 3, by: ""))?.field == "by")
        #expect(StaffCount.problem(.letIn(people: 0, reason: "carer", by: "anna"))?.field == "people")
        #expect(StaffCount.problem(.letIn(people: 21, reason: "carer", by: "anna"))?.field == "people")
        #expect(StaffCount.problem(.letIn(people: 2, reason: "", by: "anna"))?.field == "reason")
        #expect(
            StaffCount.problem(.letIn(people: 2, reason: String(repeating: "é", count: 121), by: "a"))?.field
                == "reason"
        )
        #expect(StaffCount.problem(.letIn(people: 2, reason: "carer", by: "anna")) == nil)
    }
}
