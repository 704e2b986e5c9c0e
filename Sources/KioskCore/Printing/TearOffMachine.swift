/// Decides when the ticket waiting in the printer was taken. The driver only observes; this decides.
///
/// Inputs are what the sensor saw (a presenter bit from a status poll or an ASB push, or a modem line) and
/// when; time is "elapsed since some start" so tests drive it without a clock. A ticket counts as taken once
/// the sensor reported it present and then absent for `debounce` without interruption; a flicker shorter than
/// that is ignored. A ticket the sensor never saw (grabbed the moment it came out, between the cut and the first
/// look) counts as taken once the sensor has reported it absent and `unseenTimeout` has passed since the print:
/// long enough for a presenter to push the ticket out (Citizen and Custom presenters take well under half a
/// second), short enough that the next ticket still prints within the 2 s the station promises (1 s plus one
/// ticket's print). A take requested on the control API counts at once.
public struct TearOffMachine: Sendable, Equatable {
    public enum Input: Sendable, Equatable {
        /// The ticket was cut and now waits in the printer.
        case printed(TicketID, at: Duration)
        case sensor(present: Bool, at: Duration)
        /// The control API (demo, tests, a button) says the ticket was taken.
        case takeRequested(at: Duration)
        case tick(at: Duration)
    }

    public enum Action: Sendable, Equatable {
        case taken(TicketID)
        /// Call again with `.tick` at this time (a debounce is running).
        case wake(at: Duration)
    }

    public enum State: Sendable, Equatable {
        /// No ticket waits in the printer.
        case idle
        case waiting(TicketID, printedAt: Duration, seenPresent: Bool, absentSince: Duration?)
    }

    public let debounce: Duration
    public let unseenTimeout: Duration
    public private(set) var state: State = .idle

    public init(debounce: Duration = .milliseconds(30), unseenTimeout: Duration = .seconds(1)) {
        self.debounce = debounce
        self.unseenTimeout = unseenTimeout
    }

    /// The ticket waiting in the printer, if any.
    public var waitingTicket: TicketID? {
        if case .waiting(let id, _, _, _) = state { return id }
        return nil
    }

    public mutating func handle(_ input: Input) -> [Action] {
        switch (state, input) {
        case (_, .printed(let id, let at)):
            state = .waiting(id, printedAt: at, seenPresent: false, absentSince: nil)
            return []
        case (.waiting(let id, _, _, _), .takeRequested):
            state = .idle
            return [.taken(id)]
        case (.waiting(let id, let printedAt, _, _), .sensor(true, _)):
            state = .waiting(id, printedAt: printedAt, seenPresent: true, absentSince: nil)
            return []
        case (.waiting(let id, let printedAt, let seen, let absentSince), .sensor(false, let at)):
            state = .waiting(id, printedAt: printedAt, seenPresent: seen, absentSince: absentSince ?? at)
            return evaluate(at: at)
        case (.waiting, .tick(let at)):
            return evaluate(at: at)
        case (.idle, _):
            return []
        }
    }

    private mutating func evaluate(at now: Duration) -> [Action] {
        guard case .waiting(let id, let printedAt, let seen, let absentSince?) = state else { return [] }
        let due = seen ? absentSince + debounce : max(absentSince + debounce, printedAt + unseenTimeout)
        if now >= due {
            state = .idle
            return [.taken(id)]
        }
        return [.wake(at: due)]
    }
}
