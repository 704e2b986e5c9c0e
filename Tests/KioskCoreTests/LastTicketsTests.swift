import FoundationEssentials
import TestSupport
import Testing

@testable import KioskCore

/// The day's last tickets (``LastTickets``): a new ticket whose told wait would be called after the day's closing
/// passes it; one called by then, a day without a closing, or the next day's tickets after it, do not.
@Suite struct LastTicketsTests: TicketFixtures {
    let store = UUID()
    let signer = TicketSigner()
    let opens = Timestamp(seconds: 1_790_000_000)

    func day(closes: Timestamp?) -> QueueState {
        let hours = DayHours(opens: opens, closes: closes)
        return QueueState(
            capacity: 2,
            events: [event(.dayStarted(BusinessDay(number: 20_700), hours: hours), at: opens)]
        )
    }

    @Test func aWaitPastTheClosingPassesIt() {
        let closes = opens + .seconds(14 * 3600)
        let queue = day(closes: closes)
        let late = closes - .seconds(1800)  // half an hour before closing
        #expect(LastTickets.closingPassed(by: .seconds(1799), queue: queue, at: late) == nil)
        #expect(LastTickets.closingPassed(by: .seconds(1800), queue: queue, at: late) == nil, "called as it closes")
        #expect(LastTickets.closingPassed(by: .seconds(1801), queue: queue, at: late) == closes)
        // Before opening the told wait holds the time until the opening: the same rule.
        #expect(LastTickets.closingPassed(by: .seconds(15 * 3600), queue: queue, at: opens - .seconds(600)) == closes)
        // At and after closing the next day's tickets are the calendar's to decide.
        #expect(LastTickets.closingPassed(by: .seconds(3600), queue: queue, at: closes) == nil)
        // A store that never closes always hands them out.
        #expect(LastTickets.closingPassed(by: .seconds(86_400), queue: day(closes: nil), at: late) == nil)
    }
}
