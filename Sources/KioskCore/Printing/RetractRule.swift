/// When the ticket waiting in a presenter is pulled back in, voided, and replaced by a fresh one.
///
/// Four reasons: the ticket was issued on an earlier business day than the one now (its code is yesterday's: a
/// customer holding it would be refused as yesterday's, and today's numbers start again at 001), the store hands
/// out no more tickets today (``LastTickets``), what it printed no longer holds (``TicketPromise``), or, with
/// `after`, nobody took it for that long (its printed wait estimate has gone stale). Only for a printer that can
/// retract; one that cannot keeps the ticket, and its holder is admitted as the day's ticket it is when taken
/// (the line counts it from its tear-off). Times are "elapsed since some start", like ``TearOffMachine``'s.
public struct RetractRule: Sendable, Equatable {
    public enum Reason: String, Sendable, Equatable {
        /// Issued on an earlier business day.
        case earlierDay = "earlier_day"
        /// Not taken within `after`.
        case notTaken = "not_taken"
        /// The wait it would now tell passes the store's closing (``LastTickets``): the store hands out no more.
        case pastClosing = "past_closing"
        /// What it printed no longer holds (``TicketPromise``): a fresh one tells the truth.
        case outdated
    }

    /// The least time between two tickets pulled back as ``Reason/outdated``. Each needs a change for the worse
    /// (nearly always an app ticket joining ahead), so a store pays at most one ticket of paper per app ticket, and
    /// a burst of them costs one. Measured (`TicketPromiseTests`, a busy hour near capacity: 60–65 tear-offs, 72–77
    /// app tickets): 27–35 reprints and no tear-off of a false promise; in an overloaded hour 60 s left one
    /// tear-off in five false, 5–15 s about one in a hundred.
    public static let outdatedSpacing: Duration = .seconds(10)

    /// Retract a ticket nobody took for this long (nil: only an earlier day's ticket).
    public var after: Duration?

    public init(after: Duration? = nil) {
        self.after = after
    }

    /// Why the waiting ticket must go back in now, or nil to leave it.
    public func reason(
        presentedAt: Duration,
        now: Duration,
        issuedOn ticketDay: BusinessDay,
        today: BusinessDay,
        pastClosing: Bool = false,
        outdated: Bool = false
    ) -> Reason? {
        if ticketDay < today { return .earlierDay }
        if pastClosing { return .pastClosing }
        if outdated { return .outdated }
        if let after, now - presentedAt >= after { return .notTaken }
        return nil
    }
}
