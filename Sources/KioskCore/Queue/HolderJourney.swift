import HashTreeCollections

/// A holder's journey to the door, told by the ticket's page (``StoreEvent/Body/journeyTold(_:minutes:)``, written
/// by the server only, for the ticket's holder): once the ticket is called its call window lasts long enough for
/// the trip — the journey and ``margin`` — up to ``longestWindow`` call windows, never less than the store's
/// window. A holder whose trip is longer than the window, called as they take the ticket (a store with free
/// places calls at once), would otherwise find it expired at the door.
///
/// Holding a place longer costs nothing while nobody waits (the store had free places), and a holder who leaves
/// when told (``LeaveBy``) reaches the door about when it is called, so the longer window is seldom used up. The
/// bound keeps a false journey from holding a place for long: the window's end is counted from the call, and
/// telling again does not move it past ``longestWindow``. An older kiosk, which does not know the event, counts
/// the store's window alone (it keeps the event unread and says it wants an update).
public enum HolderJourney {
    /// The minutes a holder may tell (the ticket page's, and the status read's `journeyMinutes`).
    public static let minutes = 1...240
    /// The time between the trip's end and the window's: finding the door, a crossing.
    public static let margin = Duration.seconds(2 * 60)
    /// How many of the store's call windows a journey can make the window at most.
    public static let longestWindow = 3
    /// How many times one ticket's holder may tell its journey (each an event of the store's log).
    public static let timesPerTicket = 3

    /// The call window of a ticket whose holder told `journey` minutes (nil: none told).
    public static func window(journey: Int?, policy: AdmissionPolicy) -> Duration {
        guard let journey, minutes.contains(journey) else { return policy.callWindow }
        let trip = Duration.seconds(journey * 60) + margin
        return max(policy.callWindow, min(trip, policy.callWindow * longestWindow))
    }
}

/// The journeys told for the tickets still waiting, by ticket (part of ``QueueState``): few, as only app holders
/// tell one, and forgotten when a day starts afresh.
public struct HolderJourneys: Sendable, Equatable, Codable {
    struct Told: Sendable, Equatable, Codable {
        var minutes: Int
        var times: Int
    }

    private var told: TreeDictionary<TicketID, Told> = [:]

    public init() {}

    /// The minutes the holder of `id` told last, if any.
    public subscript(id: TicketID) -> Int? { told[id]?.minutes }

    /// How many times the holder of `id` told its journey.
    public func times(_ id: TicketID) -> Int { told[id]?.times ?? 0 }

    /// Folds one `journeyTold`: out-of-range minutes are ignored (no writer of this version makes them).
    mutating func tell(_ id: TicketID, minutes: Int) {
        guard HolderJourney.minutes.contains(minutes) else { return }
        told[id] = Told(minutes: minutes, times: times(id) + 1)
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
    /// The call window of ticket `id`: the store's, or as long as its holder's trip (``HolderJourney``).
    public func callWindow(of id: TicketID, policy: AdmissionPolicy) -> Duration {
        HolderJourney.window(journey: journeys[id], policy: policy)
    }
}
