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

    /// Staff paused the calls for `reason`, for `minutes` (a door's pause ends within the hour: ``LinePause``).
    public func pauseCalls(reason: String, minutes: Int, at now: Timestamp? = nil) throws {
        guard LinePause.doorMinutes.contains(minutes) else {
            throw StaffProblem(
                field: "minutes",
                description: "a pause of \(LinePause.doorMinutes.lowerBound)–\(LinePause.doorMinutes.upperBound) "
                    + "minutes here; a longer one is the manager's, in clup-server's console"
            )
        }
        let now = now ?? clock.now()
        let body = StoreEvent.Body.linePaused(
            reason: reason,
            until: LinePause.until(minutes: minutes, from: now),
            by: config.device.id
        )
        try recordStaff(body, at: now)
    }

    /// Staff resumed the calls (nothing is written while none are paused).
    public func resumeCalls(at now: Timestamp? = nil) throws {
        let now = now ?? clock.now()
        guard queue.snapshot.isPaused(at: now) else { return }
        try recordStaff(.lineResumed(by: config.device.id), at: now)
    }

    private func recordStaff(_ body: StoreEvent.Body, at now: Timestamp?) throws {
        let now = now ?? clock.now()
        if let problem = StaffCount.problem(body) ?? LinePause.problem(body, at: now) {
            throw StaffProblem(field: problem.field, description: problem.message)
        }
        try days.startDayIfDue()
        try log.record([body], at: now)
        logger.notice("staff event recorded", metadata: ["type": "\(body.known?.rawValue ?? "")"])
    }
}
