import FoundationEssentials
import Testing

@testable import KioskCore

/// A holder's told journey (``HolderJourney``): once called, its ticket's window lasts the trip and its margin,
/// never less than the store's window nor more than three of them; only a waiting ticket's journey counts, and a
/// day that starts afresh forgets them.
@Suite struct HolderJourneyTests: TicketFixtures {
    let store = UUID()
    let signer = TicketSigner()
    let opens = Timestamp(seconds: 1_790_000_000)
    let policy = AdmissionPolicy(callWindow: .seconds(600))

    /// A store with free places, open from `opens`, and `count` app tickets taken at `opens` + 1 s, + 2 s…: each
    /// called as it is taken.
    func freeStore(_ count: Int) -> (state: QueueState, tickets: [Ticket]) {
        var log = [
            event(.dayStarted(BusinessDay(number: 20_800), hours: DayHours(opens: opens, closes: nil)), at: opens)
        ]
        let tickets = (0..<count).map { ticket($0 + 1, kind: .app, at: opens + .seconds(Int64($0) + 1)) }
        log += tickets.map { event(.ticketIssued($0), at: $0.issuedAt) }
        return (QueueState(capacity: 10, events: log), tickets)
    }

    @Test func theWindowReachesTheTripFromItsTellingWithinItsBounds() {
        let minute = Duration.seconds(60)
        func window(_ journey: Int?, toldAfterCall: Int = 0) -> Duration {
            let called = opens + minute * 5
            return HolderJourney.window(
                journey: journey,
                told: called + minute * toldAfterCall,
                called: called,
                policy: policy
            )
        }
        #expect(window(nil) == minute * 10)
        #expect(window(3) == minute * 10, "never shorter than the store's")
        #expect(window(25) == minute * 27, "the trip and its margin")
        #expect(window(25, toldAfterCall: 2) == minute * 29, "told two minutes after the call: from then")
        #expect(window(25, toldAfterCall: -10) == minute * 17, "told ten minutes before the call")
        #expect(window(25, toldAfterCall: -60) == minute * 10, "could have been there long ago: the store's")
        #expect(window(200) == minute * 30, "at most three windows")
        #expect(window(0) == minute * 10, "out of range: the store's")
        #expect(window(241) == minute * 10)
    }

    @Test func aHolderCalledAtTakeIsAdmittedUntilItsTripEnds() {
        var (state, tickets) = freeStore(2)
        let far = tickets[0]
        let near = tickets[1]
        let told = opens + .seconds(5)
        state.apply(event(.journeyTold(far.id, minutes: 25), at: told))
        #expect(state.journeys[far.id] == 25 && state.journeys[near.id] == nil)
        let called = state.callTime(of: far.id, at: opens + .seconds(10))!
        // Past the store's window: the one without a journey is overdue, the one on its way is not.
        let late = called + .seconds(20 * 60)
        #expect(Admission.decide(scan(far), queue: state, now: late, policy: policy).isAdmitted)
        #expect(Admission.decide(scan(near), queue: state, now: late, policy: policy) == .expired)
        #expect(Admission.noShows(queue: state, now: late, policy: policy) == [near.id])
        // A door of a version before journeys counts the store's window: the server accepts its expiry.
        #expect(Admission.isNoShow(far.id, queue: state, now: late, policy: policy, storesWindow: true))
        #expect(!Admission.isNoShow(far.id, queue: state, now: late, policy: policy))
        // Past its own window (27 minutes from the telling), it expires too.
        let after = told + .seconds(27 * 60 + 1)
        #expect(Admission.decide(scan(far), queue: state, now: after, policy: policy) == .expired)
        #expect(Set(Admission.noShows(queue: state, now: after, policy: policy)) == [far.id, near.id])
    }

    @Test func aJourneyToldLongBeforeTheCallHoldsNoPlaceLonger() throws {
        var (state, tickets) = freeStore(11)
        // The eleventh waits behind ten inside; told its 20-minute journey at once.
        for t in tickets.prefix(10) {
            state.apply(event(.ticketAdmitted(t.id, door: "door-1"), at: opens + .seconds(20)))
        }
        let last = tickets[10]
        state.apply(event(.journeyTold(last.id, minutes: 20), at: opens + .seconds(30)))
        #expect(!state.isCalled(last.id, at: opens + .seconds(3_600)))
        // Called an hour later (someone left): the store's window.
        let exit = opens + .seconds(3_600)
        state.apply(event(.customerExited, at: exit))
        let called = try #require(state.callTime(of: last.id, at: exit + .seconds(1)))
        #expect(state.callWindow(of: last.id, calledAt: called, policy: policy) == .seconds(600))
        #expect(Admission.noShows(queue: state, now: called + .seconds(601), policy: policy) == [last.id])
    }

    @Test func onlyAWaitingTicketsJourneyInRangeCountsAndTellingIsCounted() {
        var (state, tickets) = freeStore(3)
        state.apply(event(.ticketAdmitted(tickets[0].id, door: "door-1"), at: opens + .seconds(30)))
        state.apply(event(.journeyTold(tickets[0].id, minutes: 20), at: opens + .seconds(40)))
        #expect(state.journeys[tickets[0].id] == nil, "admitted: nothing to reach")
        state.apply(event(.journeyTold(tickets[1].id, minutes: 0), at: opens + .seconds(40)))
        state.apply(event(.journeyTold(tickets[1].id, minutes: 241), at: opens + .seconds(41)))
        #expect(state.journeys[tickets[1].id] == nil && state.journeys.times(tickets[1].id) == 0)
        state.apply(event(.journeyTold(tickets[2].id, minutes: 15), at: opens + .seconds(42)))
        state.apply(event(.journeyTold(tickets[2].id, minutes: 40), at: opens + .seconds(43)))
        #expect(state.journeys[tickets[2].id] == 40 && state.journeys.times(tickets[2].id) == 2)
        let called = state.callTime(of: tickets[2].id, at: opens + .seconds(60))!
        #expect(state.callWindow(of: tickets[2].id, calledAt: called, policy: policy) == .seconds(30 * 60))
    }

    @Test func aDayThatStartsAfreshForgetsThemAndAKeptLineKeepsThem() {
        let (state, tickets) = freeStore(2)
        var told = state
        told.apply(event(.journeyTold(tickets[0].id, minutes: 12), at: opens + .seconds(5)))
        let next = opens + .seconds(86_400)
        let hours = DayHours(opens: next, closes: nil)
        var afresh = told
        afresh.apply(event(.dayStarted(BusinessDay(number: 20_801), hours: hours), at: next))
        #expect(afresh.journeys == HolderJourneys())
        var kept = told
        kept.apply(event(.dayStarted(BusinessDay(number: 20_801), hours: hours, keepsLine: true), at: next))
        #expect(kept.journeys[tickets[0].id] == 12)
    }

    @Test func noKioskWritesOne() {
        let body = StoreEvent.Body.journeyTold(UUID(), minutes: 10)
        #expect(KioskRole.allCases.allSatisfy { !$0.writes(body) })
    }
}
