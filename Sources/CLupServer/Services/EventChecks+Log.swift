import KioskCore

/// A store's log as a kiosk's batch meets it: its queue when the batch arrived, and what the batch's earlier
/// events changed. What a kiosk writes about a ticket must be about a ticket it may touch: a printer takes and
/// voids its own paper tickets (a door also takes the paper tickets it scans), no kiosk cancels a shopper's
/// ticket; an expiry is of a ticket called longer ago than the call window (as the server's duty would write
/// it); a door admits tickets the log knows, and counts no more people leaving than are inside.
///
/// What it cannot judge it lets through: a ticket's stage changed since the kiosk decided (the server's duty
/// expired it first, another door admitted it) makes the event change nothing in the fold.
struct LogView: Sendable {
    let state: QueueState
    let policy: AdmissionPolicy
    let now: Timestamp
    /// Tickets the batch issued so far.
    private var issued: [TicketID: Ticket] = [:]
    /// Tickets the batch admitted so far.
    private var admitted: Set<TicketID> = []
    /// People inside, as the batch's admissions and exits so far leave the count.
    private var inside: Int
    /// Of those still inside at the last closing, how many have not been seen leaving yet.
    private var leftOfLastDay: Int

    init(state: QueueState, policy: AdmissionPolicy, now: Timestamp) {
        self.state = state
        self.policy = policy
        self.now = now
        inside = state.inside
        leftOfLastDay = state.insideAtLastDayEnd
    }

    private func ticket(_ id: TicketID) -> Ticket? { issued[id] ?? state.entries[id]?.ticket }

    /// Checks one event against the log and counts what it changes; the refusal names `at`.
    mutating func admit(_ event: StoreEvent, kiosk: KioskGrant, at: String) throws(Refusal) {
        switch event.body {
        case .ticketIssued(let new, _):
            if let known = state.entries[new.id]?.ticket, known.issuer != kiosk.device {
                throw Refusal(
                    .conflict,
                    "ticket id \(new.id) is in use: a kiosk makes a new id (UUIDv7) for each ticket it prints",
                    field: "\(at).body.ticket.id"
                )
            }
            issued[new.id] = new
        case .ticketTaken(let id):
            let ticket = try known(id, at: at)
            guard ticket.kind == .paper, ticket.issuer == kiosk.device || kiosk.role.guardsDoor else {
                throw Refusal(
                    .forbidden,
                    "a printer takes only its own paper tickets (a door, the paper tickets it scans)",
                    field: "\(at).body.ticketId"
                )
            }
        case .ticketCancelled(let id):
            let ticket = try known(id, at: at)
            guard ticket.kind == .paper, ticket.issuer == kiosk.device else {
                throw Refusal(
                    .forbidden,
                    "a kiosk voids only its own paper tickets (a holder or a manager cancels the others)",
                    field: "\(at).body.ticketId"
                )
            }
        case .ticketExpired(let id):
            _ = try known(id, at: at)
            // Only a ticket in line may expire; one of the batch's own is this printer's paper.
            guard issued[id] == nil, !admitted.contains(id), case .waiting = state.stage(of: id) else { return }
            // By the store's window: a door of a version before holders' journeys counts that one.
            guard Admission.isNoShow(id, queue: state, now: now, policy: policy, storesWindow: true) else {
                let window = policy.callWindow.components.seconds / 60
                let called = state.callTime(of: id, at: now).map { (now - $0).components.seconds }
                let why = called.map { "called \($0) s ago, the call window is \(window) min" } ?? "not called yet"
                throw Refusal(.conflict, "\(why): not a no-show yet", field: "\(at).body.ticketId")
            }
        case .ticketAdmitted(let id, _):
            _ = try known(id, at: at)
            let before = state.stage(of: id)
            if admitted.insert(id).inserted, !(before.map { if case .admitted = $0 { true } else { false } } ?? false) {
                inside += 1
            }
        case .customerExited:
            if inside > 0 {
                inside -= 1
            } else if leftOfLastDay > 0, state.opensAt(after: event.time) != nil {
                leftOfLastDay -= 1
            } else {
                throw Refusal(
                    .conflict,
                    "nobody is inside to leave (the store's log counts \(state.inside)): an exit beam or button "
                        + "counted someone twice",
                    field: "\(at).body"
                )
            }
        case .countCorrected(let count, _):
            // A door's staff count those they see: a store holds at most its capacity, and people who came in
            // unseen are a few more, not a count that keeps the store shut all day (a stolen box's).
            let most = max(2 * state.capacity, state.capacity + 20)
            guard count <= most else {
                throw Refusal.invalid(
                    "a count of at most \(most) at a store of \(state.capacity) places — a larger count is the "
                        + "manager's, in the console",
                    field: "\(at).body.inside"
                )
            }
            inside = count
        case .letIn(let people, _, _):
            inside += people
        case .scanRefused, .dayStarted, .capacityChanged, .linePaused, .lineResumed, .journeyTold, .unknown:
            break
        }
    }

    private func known(_ id: TicketID, at: String) throws(Refusal) -> Ticket {
        guard let ticket = ticket(id) else {
            throw Refusal(.conflict, "no ticket \(id) in this store's log", field: "\(at).body.ticketId")
        }
        return ticket
    }
}
