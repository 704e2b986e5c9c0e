/// What staff say of the people inside, as events of the store's log: a corrected count
/// (``StoreEvent/Body/countCorrected(inside:by:)``: "there are 17 people inside", after an exit beam missed some)
/// and people let in without a ticket (``StoreEvent/Body/letIn(people:reason:by:)``: a carer, a delivery). The
/// store's manager writes them in the console or through the API, a door's staff on the kiosk's manager page.
/// The bounds here are every writer's and the server's.
///
/// How the fold counts a correction (``QueueState/inside``): the count is the corrected number at the
/// correction's time, plus the people admitted or let in since, less those who left since — whatever order the
/// events reach the log in. An admission or exit stamped before the correction (a door that was offline) still
/// changes its ticket's stage but not the count: the staff counted what they saw. A correction stamped before
/// the day's latest one is kept for the record and changes nothing. A day that starts afresh counts from its
/// own start (or its own correction).
public enum StaffCount {
    /// A corrected count: none up to the largest store's capacity.
    public static let inside = 0...StoreCapacity.range.upperBound
    /// People let in at once without a ticket.
    public static let people = 1...20
    /// Who did it: a manager's user name, or the door's device name.
    public static let by = TextLimit(1...64)
    /// Why they were let in, in the staff's words.
    public static let reason = TextLimit(1...120)

    /// A count as staff send it: clup-server's `POST /v1/stores/{store}/count` and kioskd's `POST /door/count`.
    public struct CountRequest: Sendable, Codable {
        public var inside: Int
    }

    /// People let in as staff send them: `POST …/let-in` on both.
    public struct LetInRequest: Sendable, Codable {
        public var people: Int
        public var reason: String
    }

    /// The people a `letIn` adds to the count: its number, within ``people`` even if an event stored before these
    /// bounds said more (or less). The fold, the traffic the visit length is learnt from and the day's report
    /// count the same.
    public static func counted(people count: Int) -> Int {
        min(max(count, 0), people.upperBound)
    }

    /// What is wrong with a staff event's values (the field, and what to send instead), nil if nothing is or
    /// the event is of another type.
    public static func problem(_ body: StoreEvent.Body) -> (field: String, message: String)? {
        switch body {
        case .countCorrected(let count, let who):
            if !inside.contains(count) {
                return ("inside", "the people inside: a whole number from 0 to \(inside.upperBound)")
            }
            if !by.allows(who) { return ("by", "who corrected the count: 1–64 characters") }
        case .letIn(let count, let why, let who):
            if !people.contains(count) {
                return ("people", "the people let in: \(people.lowerBound)–\(people.upperBound)")
            }
            if !reason.allows(why) { return ("reason", "why they were let in: 1–120 characters") }
            if !by.allows(who) { return ("by", "who let them in: 1–64 characters") }
        default:
            break
        }
        return nil
    }
}

/// The day's latest correction of the count (``StaffCount``), as the fold keeps it.
public struct CountCorrection: Sendable, Hashable, Codable {
    /// When staff counted, how many they counted, and who.
    public var at: Timestamp
    public var inside: Int
    public var by: String
}
