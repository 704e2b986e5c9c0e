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

    @Test func theWindowReachesTheTripWithinItsBounds() {
        let minute = Duration.seconds(60)
        #expect(HolderJourney.window(journey: nil, policy: policy) == minute * 10)
        #expect(HolderJourney.window(journey: 3, policy: policy) == minute * 10, "never shorter than the store's")
        #expect(HolderJourney.window(journey: 25, policy: policy) == minute * 27, "the trip and its margin")
        #expect(HolderJourney.window(journey: 200, policy: policy) == minute * 30, "at most three windows")
        #expect(HolderJourney.window(journey: 0, policy: policy) == minute * 10, "out of range: the store's")
        #expect(HolderJourney.window(journey: 241, policy: policy) == minute * 10)
    }

    @Test func aCalledHolderOnItsWayIsAdmittedUntilItsTripEnds() {
        var (state, tickets) = freeStore(2)
        let far = tickets[0]
        let near = tickets[1]
        state.apply(event(.journeyTold(far.id, minutes: 25), at: opens + .seconds(5)))
        #expect(state.journeys[far.id] == 25 && state.journeys[near.id] == nil)
        let called = state.callTime(of: far.id, at: opens + .seconds(10))!
        // Past the store's window: the one without a journey is overdue, the one on its way is not.
        let late = called + .seconds(20 * 60)
        #expect(Admission.decide(scan(far), queue: state, now: late, policy: policy).isAdmitted)
        #expect(Admission.decide(scan(near), queue: state, now: late, policy: policy) == .expired)
        #expect(Admission.noShows(queue: state, now: late, policy: policy) == [near.id])
        // Past its own window (27 minutes), it expires too.
        let after = called + .seconds(27 * 60 + 1)
        #expect(Admission.decide(scan(far), queue: state, now: after, policy: policy) == .expired)
        #expect(Set(Admission.noShows(queue: state, now: after, policy: policy)) == [far.id, near.id])
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
        #expect(state.callWindow(of: tickets[2].id, policy: policy) == .seconds(30 * 60))
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
