import HashTreeCollections

/// A holder's journey to the door, told by the ticket's page (``StoreEvent/Body/journeyTold(_:minutes:)``, written
/// by the server only, for the ticket's holder): a ticket called before its holder, setting out when they told
/// the journey, could reach the door keeps its call until they could — the telling's time, the journey and
/// ``margin`` — never less than the store's window from the call, nor more than ``longestWindow`` of them. A
/// holder whose trip is longer than the window, called as they take the ticket (a store with free places calls at
/// once), would otherwise find it expired at the door.
///
/// Only the trip from the telling counts: a ticket called later than its holder could have arrived (a holder told
/// when to leave, ``LeaveBy``, sets out before the call) keeps the store's window, so a long journey told early
/// holds no place longer. The bound keeps a false journey from holding a place for long: the window's end is
/// counted from the call, and telling again does not move it past ``longestWindow``. An older kiosk, which does
/// not know the event, counts the store's window alone (it keeps the event unread and says it wants an update).
public enum HolderJourney {
    /// The minutes a holder may tell (the ticket page's, and the status read's `journeyMinutes`).
    public static let minutes = 1...240
    /// The time between the trip's end and the window's: finding the door, a crossing.
    public static let margin = Duration.seconds(2 * 60)
    /// How many of the store's call windows a journey can make the window at most.
    public static let longestWindow = 3
    /// How many times one ticket's holder may tell its journey (each an event of the store's log).
    public static let timesPerTicket = 3

    /// The call window of a ticket called at `called` whose holder told `journey` minutes at `told` (nil: none
    /// told).
    public static func window(
        journey: Int?,
        told: Timestamp?,
        called: Timestamp,
        policy: AdmissionPolicy
    ) -> Duration {
        guard let journey, let told, minutes.contains(journey) else { return policy.callWindow }
        let reach = told + .seconds(journey * 60) + margin - called
        return max(policy.callWindow, min(reach, policy.callWindow * longestWindow))
    }
}

/// The journeys told for the tickets still waiting, by ticket (part of ``QueueState``): few, as only app holders
/// tell one, and forgotten when a day starts afresh.
public struct HolderJourneys: Sendable, Equatable, Codable {
    struct Told: Sendable, Equatable, Codable {
        var minutes: Int
        var times: Int
        /// When it was last told (the event's line time).
        var at: Timestamp
    }

    private(set) var told: TreeDictionary<TicketID, Told> = [:]

    public init() {}

    /// The minutes the holder of `id` told last, if any.
    public subscript(id: TicketID) -> Int? { told[id]?.minutes }

    /// How many times the holder of `id` told its journey.
    public func times(_ id: TicketID) -> Int { told[id]?.times ?? 0 }

    /// Folds one `journeyTold` told at `time`: out-of-range minutes are ignored (no writer of this version makes
    /// them).
    mutating func tell(_ id: TicketID, minutes: Int, at time: Timestamp) {
        guard HolderJourney.minutes.contains(minutes) else { return }
        told[id] = Told(minutes: minutes, times: times(id) + 1, at: time)
    }

    /// Keeps the journeys of the tickets `keep` says are still live.
    mutating func keep(where keep: (TicketID) -> Bool) {
        told = told.filter { keep($0.key) }
    }

    public init(from decoder: any Decoder) throws {
        let pairs = try [TicketID: Told](from: decoder)
        told = TreeDictionary(uniqueKeysWithValues: pairs.map { ($0.key, $0.value) })
    }

    public func encode(to encoder: any Encoder) throws {
        try Dictionary(uniqueKeysWithValues: told.map { ($0.key, $0.value) }).encode(to: encoder)
    }
}

extension QueueState {
    /// The call window of ticket `id` called at `called`: the store's, or until its holder could reach the door
    /// (``HolderJourney``).
    public func callWindow(of id: TicketID, calledAt called: Timestamp, policy: AdmissionPolicy) -> Duration {
        let told = journeys.told[id]
        return HolderJourney.window(journey: told?.minutes, told: told?.at, called: called, policy: policy)
    }
}
