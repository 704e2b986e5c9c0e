/// When the ticket waiting in a presenter is pulled back in, voided, and replaced by a fresh one.
///
/// Three reasons: the ticket was issued on an earlier business day than the one now (its code is yesterday's: a
/// customer holding it would be refused as yesterday's, and today's numbers start again at 001), the store hands
/// out no more tickets today (``LastTickets``), or, with `after`, nobody took it for that long (its printed wait estimate has gone stale). Only for a printer that can
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
    }

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
        pastClosing: Bool = false
    ) -> Reason? {
        if ticketDay < today { return .earlierDay }
        if pastClosing { return .pastClosing }
        if let after, now - presentedAt >= after { return .notTaken }
        return nil
    }
}
