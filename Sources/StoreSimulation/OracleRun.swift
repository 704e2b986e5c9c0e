import HeapModule
import KioskCore

/// One forward run of the oracle: the door's rule on the queue's rule — the first (capacity − inside) of the line
/// are called; a called holder at the door comes in; a booking at the door comes in on a free place within its
/// window, called or not; a called holder not there by the end of the call window loses its ticket; while staff
/// pause the calls nobody is called or let in by ticket, and a holder called before the pause's end has a whole
/// call window from it (a booking whose lateness it covered too). Minutes from now.
struct OracleRun {
    /// What the runs know of a holder ahead, the same in every run.
    struct Known {
        var slot: BookingSlot?
        var calledAgo: Double?
        var told: Double
        var atDoor: Bool
        /// The simulated shopper's own: when it left home, and the visit it said (a booking).
        var shopper: (leftHome: Timestamp?, says: Int?)?
    }

    struct Holder {
        /// When it is at the door (∞: never) — for an app holder at home, its journey after it leaves.
        var arrives: Double
        /// An app holder at home: when it leaves unless called before, and its journey.
        var leaves: Double?
        var travel = 0.0
        var visit: Double
        var calledAt: Double?
        /// A booking: the end of its window (it comes in on a free place until then).
        var gone: Double?

        init(arrives: Double, visit: Double, calledAt: Double? = nil, gone: Double? = nil) {
            self.arrives = arrives
            self.visit = visit
            self.calledAt = calledAt
            self.gone = gone
        }

        init(leaves: Double, travel: Double, visit: Double, calledAt: Double?) {
            self.init(arrives: .infinity, visit: visit, calledAt: calledAt)
            self.leaves = leaves
            self.travel = travel
        }

        /// When it is at the door, as far as this run knows.
        var at: Double {
            guard let leaves else { return arrives }
            return min(leaves, calledAt ?? .infinity) + travel
        }

        /// When it loses its place: a booking at its window's end, a called ticket at the call window's.
        func lost(window: Double) -> Double {
            if let gone { return gone }
            return calledAt.map { $0 + window } ?? .infinity
        }
    }

    let capacity: Int
    let window: Double
    /// A booking's lateness.
    let late: Double
    /// Staff's pause of the calls, if one holds or is to come.
    var pause: (from: Double, until: Double)?
    var inside = 0
    var departures = ForwardRun()
    /// The line as the caller builds it, the estimated holder last; from ``callOfLast()`` on, its first
    /// `head` entries are gone (a holder leaving the called part moves those before it one on: a few, where
    /// taking it out of the array moved the whole line behind it — a drawn store's line of a thousand).
    var line: [Holder] = []
    var bookings: [Holder] = []
    var clock = 0.0
    private var head = 0
    /// Where in `line` the holders are that may act though past the called part: bookings, and holders
    /// called before (they lose their place at the window's end), ascending. Every other holder past the
    /// called part waits, and is not looked at.
    private var marked: [Int] = []

    init(capacity: Int, window: Double, late: Double) {
        self.capacity = capacity
        self.window = window
        self.late = late
    }

    /// Whether calls are paused at `time`.
    func paused(at time: Double) -> Bool {
        pause.map { $0.from <= time && time < $0.until } ?? false
    }

    /// When `holder` loses its place: a pause's end restarts a call window, and a booking's lateness it covered.
    func lost(_ holder: Holder) -> Double {
        let lost = holder.lost(window: window)
        guard let pause, lost.isFinite, lost > pause.from else { return lost }
        if holder.gone != nil { return lost - late < pause.until ? max(lost, pause.until + late) : lost }
        return (holder.calledAt ?? .infinity) < pause.until ? max(lost, pause.until + window) : lost
    }

    var free: Int { max(capacity - inside, 0) }

    /// Holders ahead of the estimated one.
    private var ahead: Int { line.count - head - 1 }

    /// When the line's last holder is called.
    mutating func callOfLast() -> Double {
        marked = line.indices.filter { line[$0].gone != nil || line[$0].calledAt != nil }
        while clock < 24 * 60 {
            settle()
            if ahead + 1 <= free, !paused(at: clock) { return clock }
            // The next thing that happens: someone leaves, a called holder or a booking comes or runs out of time.
            // (Each time compared on its own: an array literal of the two, per holder per event, was a third of
            // a drawn store's benchmark time in allocations.)
            var next = Double.infinity
            func consider(_ time: Double) { if time > clock { next = min(next, time) } }
            if let pause {
                consider(pause.from)
                consider(pause.until)
            }
            let called = min(free, ahead)
            for holder in line[head..<head + called] {
                consider(holder.at)
                consider(lost(holder))
            }
            for position in marked where position - head >= called && position - head < ahead {
                guard line[position].gone != nil else { continue }
                consider(line[position].at)
                consider(lost(line[position]))
            }
            for booking in bookings {
                consider(booking.at)
                consider(lost(booking))
            }
            if let leaving = departures.peek, leaving <= next {
                _ = departures.next()
                clock = max(clock, leaving)
                inside -= 1
            } else if next.isFinite {
                clock = next
            } else {
                return clock
            }
        }
        return clock
    }

    /// Everything that happens now: bookings at the door in their window come in while there is room; the
    /// called holders (the first of the line, one a free place) are stamped and come in when they are at the
    /// door; whoever's time ran out loses its place. The line's last holder is the one estimated: it is only
    /// called, never let in here. Holders are looked at in the line's order, and after each change from the
    /// start again.
    mutating func settle() {
        guard !paused(at: clock) else { return }
        var changed = true
        while changed {
            changed = false
            bookings = bookings.filter { lost($0) >= clock }
            if free > 0, let index = bookings.firstIndex(where: { $0.at <= clock }) {
                admit(visit: bookings.remove(at: index).visit)
                changed = true
                continue
            }
            let called = min(free, ahead)
            for position in head..<head + called {
                if line[position].calledAt == nil {
                    line[position].calledAt = clock
                    mark(position)
                }
                if acted(at: position, called: true) {
                    changed = true
                    break
                }
            }
            if changed { continue }
            for position in marked where position - head >= called && position - head < ahead {
                if acted(at: position, called: line[position].gone != nil) {
                    changed = true
                    break
                }
            }
        }
    }

    /// The holder at `position` comes in (called, at the door, a place free) or loses its place (its time run
    /// out before it came): whether it did.
    private mutating func acted(at position: Int, called: Bool) -> Bool {
        let holder = line[position]
        if called && free > 0 && holder.at <= clock {
            admit(visit: holder.visit)
            remove(position)
            return true
        }
        if lost(holder) <= clock && holder.at > clock {
            remove(position)
            return true
        }
        return false
    }

    private mutating func mark(_ position: Int) {
        var index = marked.endIndex
        while index > marked.startIndex, marked[index - 1] > position { index -= 1 }
        if index == marked.startIndex || marked[index - 1] != position { marked.insert(position, at: index) }
    }

    /// Takes the holder at `position` out: those before it move one on.
    private mutating func remove(_ position: Int) {
        var at = position
        while at > head {
            line[at] = line[at - 1]
            at -= 1
        }
        head += 1
        if let index = marked.firstIndex(where: { $0 >= position }), marked[index] == position {
            marked.remove(at: index)
        }
        for index in marked.indices where marked[index] < position { marked[index] += 1 }
    }

    mutating func admit(visit: Double) {
        inside += 1
        departures.frees(at: clock + visit)
    }
}

/// The times places free up in one forward run, soonest first (minutes from now).
struct ForwardRun {
    private var times = Heap<Double>()

    var peek: Double? { times.min }

    mutating func frees(at time: Double) { times.insert(time) }

    mutating func next() -> Double? { times.popMin() }
}
