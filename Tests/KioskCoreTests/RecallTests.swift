import FoundationEssentials
import TestSupport
import Testing

@testable import KioskCore

/// The store's second call (``RecallPolicy``): a called ticket is called again every few minutes, at most as often
/// as the store set, only while its window lasts (which still counts from the first call) and, after a pause, from
/// the pause's end; the call board calls out each recall once, and a kiosk started late only takes note.
@Suite struct RecallTests: TicketFixtures {
    let store = UUID()
    let signer = TicketSigner()
    let opens = Timestamp(seconds: 1_790_000_000)
    let window = Duration.seconds(600)
    let today = BusinessDay(year: 2026, month: 11, day: 26)

    @Test func recallsComeEveryFewMinutesAsOftenAsSetAndOnlyWithinTheWindow() throws {
        let twice = try #require(RecallPolicy(minutes: 3, times: 2))
        let called = opens
        func call(_ policy: RecallPolicy, _ seconds: Int64, window: Duration? = nil) -> Int {
            policy.call(since: called, window: window ?? self.window, at: called + .seconds(seconds))
        }
        for (seconds, number) in [(-5, 1), (0, 1), (179, 1), (180, 2), (359, 2), (360, 3), (540, 3), (599, 3)] {
            #expect(call(twice, Int64(seconds)) == number, "\(seconds) s after the call")
        }
        #expect(twice.next(since: called, window: window, at: called) == called + .seconds(180))
        #expect(twice.next(since: called, window: window, at: called + .seconds(361)) == nil, "both made")
        // Five allowed: the third at 9 min is within the 10-minute window, the fourth at 12 is not made.
        let often = try #require(RecallPolicy(minutes: 3, times: 5))
        #expect(call(often, 540) == 4 && call(often, 720) == 4)
        #expect(often.next(since: called, window: window, at: called + .seconds(541)) == nil)
        // A recall due just as the window ends is not made: the door refuses the ticket from then.
        let half = try #require(RecallPolicy(minutes: 5, times: 3))
        #expect(call(half, 599) == 2 && call(half, 600) == 2)
        // Off, or out of range (a kiosk follows only what it can check).
        #expect(RecallPolicy(minutes: 0, times: 2) == nil && RecallPolicy(minutes: nil, times: 2) == nil)
        #expect(RecallPolicy(minutes: 61, times: 1) == nil && RecallPolicy(minutes: -3, times: 1) == nil)
        #expect(RecallPolicy(minutes: 3, times: 0) == nil && RecallPolicy(minutes: 3, times: 6) == nil)
        #expect(RecallPolicy(minutes: 3, times: nil)?.times == 1)
    }

    /// A store of two places open from `opens`, three app tickets a second apart: the first two called at once.
    func line() -> (state: QueueState, tickets: [Ticket]) {
        var log = [
            event(.dayStarted(BusinessDay(number: 20_700), hours: DayHours(opens: opens, closes: nil)), at: opens)
        ]
        let tickets = (0..<3).map { ticket($0 + 1, kind: .app, at: opens + .seconds(Int64($0) + 1)) }
        log += tickets.map { event(.ticketIssued($0), at: $0.issuedAt) }
        return (QueueState(capacity: 2, events: log), tickets)
    }

    @Test func theQueueCountsRecallsFromTheCallAndFromAPausesEnd() throws {
        var (state, tickets) = line()
        let recall = RecallPolicy(minutes: 3, times: 2)
        let first = tickets[0].id
        #expect(state.call(of: first, at: opens + .seconds(2), window: window, recall: recall) == 1)
        #expect(state.call(of: first, at: opens + .seconds(182), window: window, recall: recall) == 2)
        #expect(state.call(of: first, at: opens + .seconds(182), window: window, recall: nil) == 1, "no recall set")
        #expect(state.call(of: tickets[2].id, at: opens + .seconds(182), window: window, recall: recall) == nil)
        // A pause: nobody is called while it holds; after it the call and its recalls count from its end.
        let paused = opens + .seconds(200)
        state.apply(event(.linePaused(reason: "restock", until: paused + .seconds(300), by: "anna"), at: paused))
        #expect(state.call(of: first, at: paused + .seconds(10), window: window, recall: recall) == nil)
        let end = paused + .seconds(300)
        #expect(state.call(of: first, at: end + .seconds(1), window: window, recall: recall) == 1)
        #expect(state.call(of: first, at: end + .seconds(180), window: window, recall: recall) == 2)
    }

    @Test func theBoardCallsOutEachRecallOnceAndAKioskStartedLateTakesNote() {
        var (state, tickets) = line()
        let recall = RecallPolicy(minutes: 3, times: 2)
        var watch = CallWatch(recentLimit: 5)
        /// One look `seconds` after opening, as the call board looks: who is called out, who again.
        func look(_ seconds: Int64, _ watch: inout CallWatch) -> (fresh: [TicketCode], again: [TicketCode]) {
            let now = opens + .seconds(seconds)
            let called = state.calledIDs(at: now)
            let code = { (id: TicketID) in state.entries[id]?.ticket.code }
            _ = watch.pauses(state.pauses, at: now)
            let fresh = watch.newlyCalled(called, on: today, code: code)
            let again = watch.recalled(
                called,
                calls: { state.call(of: $0, at: now, window: window, recall: recall) },
                code: code
            )
            return (fresh, again)
        }
        let codes = tickets.map(\.code)  // the first two called as they join, 1 and 2 s after opening
        #expect(look(0, &watch) == ([], []), "the first look takes note")
        #expect(look(2, &watch) == ([codes[0], codes[1]], []))
        #expect(look(100, &watch) == ([], []))
        #expect(look(183, &watch) == ([], [codes[0], codes[1]]), "the first recall")
        #expect(look(184, &watch) == ([], []), "once")
        #expect(watch.recent == [codes[1], codes[0]], "each once in the recent calls, newest first")
        #expect(look(363, &watch) == ([], [codes[0], codes[1]]), "the second")
        #expect(look(541, &watch) == ([], []), "two at most")

        // A kiosk that starts while the tickets are on their second call says nothing of them.
        var late = CallWatch(recentLimit: 5)
        #expect(look(200, &late) == ([], []))
        #expect(look(201, &late) == ([], []))
        #expect(look(363, &late) == ([], [codes[0], codes[1]]), "but the next recall, yes")

        // After a pause the tickets are called out afresh, and their recalls count from its end.
        let paused = opens + .seconds(400)
        state.apply(event(.linePaused(reason: "spill", until: paused + .seconds(60), by: "anna"), at: paused))
        #expect(look(401, &watch) == ([], []))
        #expect(look(461, &watch) == ([codes[0], codes[1]], []), "called out when the pause ends")
        #expect(look(641, &watch) == ([], [codes[0], codes[1]]), "recalled three minutes after")
    }
}
