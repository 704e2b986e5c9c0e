import Testing

@testable import KioskCore

/// When a holder away from the store should leave (``LeaveBy``): the wait read a quarter of the way from the point
/// to the range's low end, less the journey and a margin; never in the past; a rule out of its bounds is brought within them.
@Suite struct LeaveByTests {
    let now = Timestamp(seconds: 1_790_000_000)
    let wait = WaitRange(point: .seconds(30 * 60), low: .seconds(20 * 60), high: .seconds(42 * 60))

    @Test func theWaitIsReadAQuarterOfTheWayToTheLowEnd() {
        let rule = LeaveBy.shipped
        #expect(rule.plannedWait(wait) == .seconds(27 * 60 + 30))
        // 27½ minutes planned, a 12-minute journey and a minute's margin: leave in 14½ minutes.
        #expect(rule.time(wait: wait, journey: .seconds(12 * 60), at: now) == now + .seconds(14 * 60 + 30))
        #expect(LeaveBy(reach: 0, margin: .zero).plannedWait(wait) == wait.point)
        #expect(LeaveBy(reach: 1, margin: .zero).plannedWait(wait) == wait.low)
    }

    @Test func aHolderToldToLeaveInThePastLeavesNow() {
        #expect(LeaveBy.shipped.time(wait: wait, journey: .seconds(40 * 60), at: now) == now)
        #expect(LeaveBy.shipped.time(wait: .zero, journey: .zero, at: now) == now)
    }

    @Test func aRuleOutOfBoundsIsBroughtWithinThem() {
        #expect(LeaveBy(reach: 3, margin: .seconds(-5)) == LeaveBy(reach: 1, margin: .zero))
        #expect(LeaveBy(reach: .nan).reach == 0)
        #expect(LeaveBy(reach: -1).plannedWait(wait) == wait.point)
    }
}
