import KioskCore
import StationStore

/// What the door's staff say of the people inside, from the manager page (``StaffCount``): the count as they
/// counted it, and people they let in without a ticket. Each is an event of the store's log in this door's
/// name (the page has one manager password, not names), so the server and every kiosk count from it.
extension DoorStation {
    /// The problem a staff event's values have: the field, and what to send, in words the page shows.
    public struct StaffProblem: Error, Equatable, CustomStringConvertible {
        public var field: String
        public var description: String
    }

    /// Staff counted `inside` people in the store: the count is theirs from now on.
    public func correctCount(to inside: Int, at now: Timestamp? = nil) throws {
        try recordStaff(.countCorrected(inside: inside, by: config.device.id), at: now)
    }

    /// Staff let `people` in without a ticket, for `reason`.
    public func letIn(people: Int, reason: String, at now: Timestamp? = nil) throws {
        try recordStaff(.letIn(people: people, reason: reason, by: config.device.id), at: now)
    }

    private func recordStaff(_ body: StoreEvent.Body, at now: Timestamp?) throws {
        if let problem = StaffCount.problem(body) {
            throw StaffProblem(field: problem.field, description: problem.message)
        }
        try days.startDayIfDue()
        try log.record([body], at: now ?? clock.now())
        logger.notice("staff event recorded", metadata: ["type": "\(body.known?.rawValue ?? "")"])
    }
}
