/// The door's rules (R7, R8, R19), as values.
public struct AdmissionPolicy: Sendable, Equatable {
    /// How long a called ticket may take to show up before it counts as a no-show.
    public var callWindow: Duration
    /// A booking may enter this long before its slot starts.
    public var bookingEarly: Duration
    /// ... and this long after (R19: 5 minutes of lateness).
    public var bookingLate: Duration

    public init(
        callWindow: Duration = .seconds(10 * 60),
        bookingEarly: Duration = .zero,
        bookingLate: Duration = .seconds(5 * 60)
    ) {
        self.callWindow = callWindow
        self.bookingEarly = bookingEarly
        self.bookingLate = bookingLate
    }
}

/// What the door says to a scanned ticket. Every case but `admit` refuses, with its reason.
public enum AdmissionDecision: Sendable, Equatable, CustomStringConvertible {
    case admit(TicketCode)
    /// Others are called first (R7).
    case notYourTurn(ahead: Int)
    /// No free place inside (R8).
    case storeFull(inside: Int, capacity: Int)
    case alreadyUsed(at: Timestamp)
    /// Called, but did not show up within the call window.
    case expired
    /// A ticket of an earlier business day: that day's queue ended at its closing.
    case previousDay
    /// The store is closed: it opens at `opensAt` (nil: not known yet); `ahead`: the ticket's place in the
    /// line that will be called then (nil for a ticket not in it).
    case closed(opensAt: Timestamp?, ahead: Int?)
    /// Staff paused the calls (``LinePause``) until `until` (nil: until they resume); `ahead`: the ticket's place
    /// in the line, which it keeps.
    case paused(until: Timestamp?, ahead: Int?)
    case cancelled
    /// A booking before its slot (R19).
    case tooEarly(slotStart: Timestamp)
    /// A booking more than the allowed lateness after its slot started (R19).
    case tooLate(slotStart: Timestamp)
    /// A valid ticket of another store.
    case wrongStore
    /// Signed by a key the store does not know, or altered.
    case forged
    /// Not a readable ticket code.
    case unreadable
    /// Validly signed, but the log has not heard of it yet (an app ticket before sync caught up).
    case unknownTicket
    /// The door would admit, but cannot record the admission (its storage is full): nobody is let in unrecorded.
    case notRecorded

    public var isAdmitted: Bool {
        if case .admit = self { return true }
        return false
    }

    /// A short reason key for logs, metrics and the decision event.
    public var reason: String {
        switch self {
        case .admit: return "admit"
        case .notYourTurn: return "not_your_turn"
        case .storeFull: return "store_full"
        case .alreadyUsed: return "already_used"
        case .expired: return "expired"
        case .previousDay: return "previous_day"
        case .closed: return "closed"
        case .paused: return "paused"
        case .cancelled: return "cancelled"
        case .tooEarly: return "too_early"
        case .tooLate: return "too_late"
        case .wrongStore: return "wrong_store"
        case .forged: return "forged"
        case .unreadable: return "unreadable"
        case .unknownTicket: return "unknown_ticket"
        case .notRecorded: return "not_recorded"
        }
    }

    /// What the door says, with the times it names on the store's clock (`calendar`) as read at `now`.
    public func message(_ calendar: StoreCalendar, now: Timestamp) -> String {
        switch self {
        case .closed(let opens?, let ahead):
            let at = "the store opens at \(calendar.text(of: opens, from: now))"
            return ahead.map { "\(at) — you are \(Self.place($0)) in line" } ?? "closed — \(at)"
        case .paused(let until?, let ahead):
            let at = "calls are paused until \(calendar.text(of: until, from: now))"
            return ahead.map { "\(at) — you keep your place: \(Self.place($0)) in line" } ?? at
        default:
            return description
        }
    }

    /// "1st", "2nd", "3rd", "4th" … for a place `ahead` people from the front (0: 1st).
    public static func place(_ ahead: Int) -> String {
        let n = ahead + 1
        let suffix =
            (11...13).contains(n % 100) ? "th" : ["th", "st", "nd", "rd", "th", "th", "th", "th", "th", "th"][n % 10]
        return "\(n)\(suffix)"
    }

    public var description: String {
        switch self {
        case .admit(let code): return "\(code): welcome in"
        case .notYourTurn(let ahead): return "not your turn yet — \(ahead) ahead of you"
        case .storeFull(let inside, let capacity):
            return "store full (\(inside)/\(capacity)) — please wait to be called"
        case .alreadyUsed: return "this ticket was already used"
        case .expired: return "ticket expired: it was called and not used in time — take a new one"
        case .previousDay: return "this ticket is from an earlier day — please take a new one"
        case .closed(_, let ahead?): return "the store is closed — \(Self.place(ahead)) in line when it opens"
        case .closed(_, nil): return "the store is closed — come back when it opens"
        case .paused(_, let ahead?): return "calls are paused — you keep your place: \(Self.place(ahead)) in line"
        case .paused(_, nil): return "calls are paused — please wait, staff will resume them"
        case .cancelled: return "ticket cancelled"
        case .tooEarly: return "booking not started yet — come back at your slot"
        case .tooLate: return "booking more than 5 minutes late — take a ticket"
        case .wrongStore: return "ticket of another store"
        case .forged: return "not a valid ticket"
        case .unreadable: return "could not read the code — scan again"
        case .unknownTicket: return "ticket not known here yet — wait a moment and scan again"
        case .notRecorded: return "the door cannot record entries right now — please wait, staff will help"
        }
    }
}

/// Decides at the door: a pure function of the scanned code, the queue, the time and the policy.
public enum Admission {
    public static func decide(
        _ scan: Result<TicketCodec.Claims, TicketCodec.DecodeError>,
        queue: QueueState,
        now: Timestamp,
        policy: AdmissionPolicy = AdmissionPolicy()
    ) -> AdmissionDecision {
        let claims: TicketCodec.Claims
        switch scan {
        case .success(let c): claims = c
        case .failure(.wrongStore): return .wrongStore
        case .failure(.unknownKey), .failure(.badSignature): return .forged
        case .failure: return .unreadable
        }
        guard let entry = queue.entries[claims.ticket] else {
            // The queue forgets earlier days' finished tickets; the code still says when it was issued.
            if let start = queue.dayStartedAt, claims.dayTime < start { return .previousDay }
            return .unknownTicket
        }
        let ticket = entry.ticket
        // A code is valid only as its issuer signed it: any enrolled kiosk's key signs a code for any ticket
        // id it read in the log, so one under another device's key, or saying another kind or number than the
        // logged ticket, is forged (and leaves the real holder's ticket as it was).
        guard ticket.isSigned(by: claims) else { return .forged }
        switch entry.stage {
        case .admitted(let at): return .alreadyUsed(at: at)
        case .expired: return queue.isFromEarlierDay(ticket.id) ? .previousDay : .expired
        case .cancelled: return .cancelled
        case .inPrinter, .waiting: break
        }
        if let slot = ticket.slot {
            if now < slot.start - policy.bookingEarly { return .tooEarly(slotStart: slot.start) }
            if now > lateFrom(slot, queue: queue, now: now, policy: policy) + policy.bookingLate {
                return .tooLate(slotStart: slot.start)
            }
        }
        let ahead = { entry.stage == .inPrinter ? queue.lineLength(at: now) : queue.position(of: ticket.id, at: now) }
        if !queue.isOpen(at: now) { return .closed(opensAt: queue.opensAt(after: now), ahead: ahead()) }
        if let pause = queue.pauses.holding(at: now) { return .paused(until: pause.end, ahead: ahead()) }
        if ticket.slot != nil {
            // The place is reserved at the slot's time: a booking in its window goes before walk-ins.
            return queue.freePlaces > 0
                ? .admit(ticket.code) : .storeFull(inside: queue.inside, capacity: queue.capacity)
        }
        // A paper ticket scanned at the door was torn off, whether or not the printer saw it go: it joins at issue.
        let position: Int
        if entry.stage == .inPrinter {
            position = queue.lineLength(at: now)
        } else if let inLine = queue.position(of: ticket.id, at: now) {
            position = inLine
        } else {
            return .unknownTicket
        }
        if position < queue.freePlaces {  // open: checked above
            if let called = queue.callTime(of: ticket.id, at: now),
                now > called + queue.callWindow(of: ticket.id, calledAt: called, policy: policy)
            {
                return .expired
            }
            return .admit(ticket.code)
        }
        // The first in line waits for someone to leave; one with people ahead is told its place (a holder who
        // came early is not told "store full", which sounds as if they could go in once anyone leaves).
        if queue.freePlaces == 0, position == 0 { return .storeFull(inside: queue.inside, capacity: queue.capacity) }
        return .notYourTurn(ahead: position)
    }

    /// What a door's decision records: an admission (after the tear-off it implies for a ticket still in the
    /// printer: its holder took it and walked to the door before the sensor noticed), or the refusal with its
    /// reason and the ticket it named, if any.
    public static func record(
        _ decision: AdmissionDecision,
        ticket: TicketID?,
        queue: QueueState,
        door: DeviceID
    ) -> [StoreEvent.Body] {
        // A paper ticket at the door was torn off, whether or not the printer saw it go (also one a retract
        // may have pulled back as it was taken): it joins the line now, admitted or not.
        let inHand: Bool
        switch decision {
        case .admit, .notYourTurn, .storeFull, .closed, .paused:
            inHand = ticket.map { queue.stage(of: $0) == .inPrinter } ?? false
        default: inHand = false
        }
        let taken: [StoreEvent.Body] = inHand ? [.ticketTaken(ticket!)] : []
        guard case .admit = decision, let ticket else {
            return taken + [.scanRefused(reason: decision.reason, ticket: ticket, door: door)]
        }
        return taken + [.ticketAdmitted(ticket, door: door)]
    }

    /// Tickets called longer ago than the call window and not admitted, and bookings called past the end of
    /// their window: what to log as `ticketExpired`.
    public static func noShows(
        queue: QueueState,
        now: Timestamp,
        policy: AdmissionPolicy = AdmissionPolicy()
    ) -> [TicketID] {
        queue.called(at: now).compactMap { ticket in
            isOverdue(ticket, queue: queue, now: now, policy: policy) ? ticket.id : nil
        }
    }

    /// Whether the waiting ticket `id` is a no-show at `now`: called longer ago than the call window (a
    /// booking: past its lateness), so it may be written as expired — by a door, or the server. The window is the
    /// ticket's own (``HolderJourney``), or with `storesWindow` the store's: what a door of a version before
    /// journeys counts, which the server still accepts from it.
    public static func isNoShow(
        _ id: TicketID,
        queue: QueueState,
        now: Timestamp,
        policy: AdmissionPolicy = AdmissionPolicy(),
        storesWindow: Bool = false
    ) -> Bool {
        guard queue.isCalled(id, at: now), let ticket = queue.entries[id]?.ticket else { return false }
        return isOverdue(ticket, queue: queue, now: now, policy: policy, storesWindow: storesWindow)
    }

    /// When a booking's lateness counts from: its slot's start, or the end of a pause that began before its
    /// lateness ran out and ended after the slot started (the holder could not come in meanwhile).
    public static func lateFrom(
        _ slot: BookingSlot,
        queue: QueueState,
        now: Timestamp,
        policy: AdmissionPolicy
    ) -> Timestamp {
        guard let pause = queue.pauses.latest, let end = pause.end, end <= now, end > slot.start,
            pause.since <= slot.start + policy.bookingLate
        else { return slot.start }
        return end
    }

    /// A called ticket's window is over.
    private static func isOverdue(
        _ ticket: Ticket,
        queue: QueueState,
        now: Timestamp,
        policy: AdmissionPolicy,
        storesWindow: Bool = false
    ) -> Bool {
        // A booking that did not come by the end of its window: the door refuses it as too late.
        if let slot = ticket.slot {
            return now > lateFrom(slot, queue: queue, now: now, policy: policy) + policy.bookingLate
        }
        guard let called = queue.callTime(of: ticket.id, at: now) else { return false }
        let window =
            storesWindow ? policy.callWindow : queue.callWindow(of: ticket.id, calledAt: called, policy: policy)
        return now > called + window
    }
}

extension Ticket {
    /// Whether a verified code is this ticket's as its issuer made it: the same kind and number, signed by the
    /// issuer's key (a key ring that does not name the signer can only compare kind and number).
    public func isSigned(by claims: TicketCodec.Claims) -> Bool {
        claims.ticket == id && claims.kind == kind && claims.code == code && (claims.signer ?? issuer) == issuer
    }
}
