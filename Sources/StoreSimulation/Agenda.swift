import HeapModule
import KioskCore

/// What happens next in a simulation, in time order (ties in the order they were added).
struct Agenda {
    enum Action {
        /// The server's duties (day start, no-show expiry) and the door's look at who may come in.
        case tick
        /// The server relearns its wait model (every 30 minutes, as clup-server does).
        case refresh
        /// App holders at home look at their wait.
        case watch
        /// Someone wants to go in: tears a paper ticket, or takes an app ticket at home.
        case arrive(Shopper.Plan)
        /// Someone books a slot ahead of their visit.
        case book(Shopper.Plan)
        /// Staff pause the calls for `minutes` (the scenario's pause).
        case pause(minutes: Int)
        case reachDoor(TicketID)
        case leave(TicketID)
    }

    /// An action at its time; ties in the order they were added.
    private struct Entry: Comparable {
        var time: Timestamp
        var order: Int
        var action: Action

        static func < (a: Self, b: Self) -> Bool { (a.time, a.order) < (b.time, b.order) }
        static func == (a: Self, b: Self) -> Bool { a.time == b.time && a.order == b.order }
    }

    private var heap = Heap<Entry>()
    private var added = 0

    mutating func add(_ time: Timestamp, _ action: Action) {
        added += 1
        heap.insert(Entry(time: time, order: added, action: action))
    }

    mutating func next() -> (Timestamp, Action)? {
        heap.popMin().map { ($0.time, $0.action) }
    }
}
