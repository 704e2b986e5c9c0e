/// What a printed ticket tells its holder, kept while it waits in the presenter: its place is decided only when it
/// is torn off, so what it says may stop being true meanwhile (app tickets join ahead of it, a pause begins, the
/// store fills). A presenter that can retract pulls back a ticket whose promise no longer holds and prints a fresh
/// one (``RetractRule/Reason/outdated``).
///
/// Only what would mislead counts: more people ahead than printed, "go to the door" when its holder could not go in
/// at once, or a wait longer than the top of its printed range (where it printed none, more than a minute over its
/// point: a told minute is rounded up, and the estimate drifts by one as time passes). Better news — fewer
/// ahead, a shorter wait — keeps the ticket: reprinting on every admission would cost a roll an hour in a busy store.
public struct TicketPromise: Sendable, Equatable {
    /// The people ahead it printed.
    public let ahead: Int
    /// The whole minutes it printed (0: "go to the door", or before opening "called at opening"), and its range's
    /// top (nil: none printed).
    public let minutes: Int
    public let highMinutes: Int?

    /// The promise of a ticket printed with `ahead` people ahead and `wait` (its range, if one) as the paper
    /// counts it (before opening, from the opening).
    public init(ahead: Int, wait: Duration, range: ClosedRange<Duration>?) {
        self.ahead = ahead
        let shown = WaitRange.shownMinutes(point: wait, low: range?.lowerBound, high: range?.upperBound)
        minutes = shown.minutes
        highMinutes = shown.range?.upperBound
    }

    /// Whether a holder who took it now, with `ahead` people ahead and `wait` to wait (counted as the paper
    /// counts it), would find it true.
    public func holds(ahead now: Int, wait: Duration) -> Bool {
        let minutesNow = wait.minutesRoundedUp
        return now <= ahead && !(minutes == 0 && minutesNow > 0) && minutesNow <= (highMinutes ?? minutes + 1)
    }
}
