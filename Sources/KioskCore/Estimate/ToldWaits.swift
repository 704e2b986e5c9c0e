/// What each ticket in line was told when it joined (its `ticketIssued` event keeps it), held until the ticket
/// leaves the line, to score the estimate as the log goes (the server's live metrics; ``EstimateAccuracy``
/// scores a whole day). A ticket is scored when it is admitted or expires — it was called then or before — by
/// its wait from joining the line to its call; a cancelled ticket, or one of a day that ended, is not.
public struct ToldWaits: Sendable, Codable {
    private var told: [TicketID: WaitRange] = [:]

    public init() {}

    /// Takes `event`, before it is applied to `state`; the told wait and the actual one when it scores one.
    public mutating func observe(
        _ event: StoreEvent,
        before state: QueueState
    ) -> (told: WaitRange, waited: Duration)? {
        switch event.body {
        case .ticketIssued(let ticket, let range?):
            told[ticket.id] = range
        case .ticketAdmitted(let id, _), .ticketExpired(let id):
            guard let range = told.removeValue(forKey: id), case .waiting(let joined)? = state.stage(of: id) else {
                return nil
            }
            let called = state.callTime(of: id, at: event.lineTime) ?? event.lineTime
            return (range, max(called - joined, .zero))
        case .ticketCancelled(let id):
            told[id] = nil
        case .ticketIssued, .ticketTaken, .customerExited, .capacityChanged, .scanRefused, .dayStarted,
            .countCorrected, .letIn, .linePaused, .lineResumed, .journeyTold, .unknown:
            break
        }
        return nil
    }

    /// Forgets the tickets `state` no longer holds (a day's start lets yesterday's go without an event).
    public mutating func prune(keeping state: QueueState) {
        told = told.filter { state.stage(of: $0.key) != nil }
    }
}
