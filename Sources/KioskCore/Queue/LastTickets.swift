/// A store's last tickets of the day: with its setting `stopTicketsPastClosing`, no ticket is handed out — by the
/// printer, by the app — once the wait a new one would be told passes the day's closing ("no more tickets today:
/// the wait passes closing"), and the ticket already waiting in a presenter goes back in where the printer can
/// retract it. Only the point of the told wait counts (``WaitRange/point``): a ticket told it would be called
/// before closing is handed out. A day without a closing (a store that never closes) always hands them out.
public enum LastTickets {
    /// The day's closing that a new ticket told `wait` at `now` (counted from now: before opening it holds the
    /// time until the opening) would be called after; nil when it would be called by then, or the day has no
    /// closing, or it is past (the next day's tickets: ``StoreCalendar/handsOutTickets(at:)`` decides those).
    public static func closingPassed(by wait: Duration, queue: QueueState, at now: Timestamp) -> Timestamp? {
        guard let closes = queue.hours?.closes, now < closes, now + wait > closes else { return nil }
        return closes
    }
}
