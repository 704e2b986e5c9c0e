/// When a holder away from the store should leave for it, so as to be at the door when called and not long
/// before (RASD §2.2.4, G4: nobody waits outside): from the ticket's told wait and its range, and the holder's
/// journey. They leave once the wait, read `reach` of the way from its point towards its range's low end, less
/// `margin`, is no longer than the journey — read at the point, half of them would arrive after their call (and
/// the place held for them stays empty meanwhile); at the low end, about nine in ten before it, and each waits at
/// the door for the range's lower half. clup-sim measures the
/// choice (docs/wait-estimates.md, "Following the ticket").
public struct LeaveBy: Sendable, Equatable {
    /// How far from the point towards the range's low end the wait is read (0: the point, 1: the low end).
    public var reach: Double
    /// Leave this much earlier still (the lift, the car park, finding the entrance).
    public var margin: Duration

    public init(reach: Double = 0.25, margin: Duration = .seconds(60)) {
        self.reach = min(max(reach.isFinite ? reach : 0, 0), 1)
        self.margin = max(margin, .zero)
    }

    /// The shipped rule (the figures behind it: docs/wait-estimates.md).
    public static let shipped = LeaveBy()

    /// The wait this rule plans by: between the point and the low end of `wait`.
    public func plannedWait(_ wait: WaitRange) -> Duration {
        let below = max(wait.point - wait.low, .zero)
        return max(wait.point - below * reach, .zero)
    }

    /// When to leave, told `wait` at `now` with a journey of `journey`: now or later (a holder told to leave in
    /// the past leaves now).
    public func time(wait: WaitRange, journey: Duration, at now: Timestamp) -> Timestamp {
        now + max(plannedWait(wait) - journey - margin, .zero)
    }
}
