import KioskCore

/// What happens next in a simulation, in time order (a binary heap; ties in the order they were added).
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
        case reachDoor(TicketID)
        case leave(TicketID)
    }

    private var heap: [(time: Timestamp, order: Int, action: Action)] = []
    private var added = 0

    mutating func add(_ time: Timestamp, _ action: Action) {
        added += 1
        heap.append((time, added, action))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func next() -> (Timestamp, Action)? {
        guard !heap.isEmpty else { return nil }
        let first = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < heap.count, Self.before(heap[left], heap[smallest]) { smallest = left }
                if right < heap.count, Self.before(heap[right], heap[smallest]) { smallest = right }
                guard smallest != parent else { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return (first.time, first.action)
    }

    private static func before(
        _ a: (time: Timestamp, order: Int, action: Action),
        _ b: (time: Timestamp, order: Int, action: Action)
    ) -> Bool {
        (a.time, a.order) < (b.time, b.order)
    }
}
