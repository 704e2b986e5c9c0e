import KioskCore

/// The best possible estimate, the physical limit: from the true state of the store (who is inside and since
/// when, who is at the door and who on the way, the line, the bookings) with the world's true behaviour — the
/// scenario's visits, no-shows, journeys and bookings' arrivals, and app holders who leave home as their ticket
/// tells them — run the door forward many times on the queue's own rule; the median call time is the estimate
/// and its 10th and 90th percentiles the range. It knows the distributions, not any one shopper's fate.
extension Simulation {
    static let oracleRuns = 64

    func oracle(ahead: Int, at now: Timestamp) -> WaitRange {
        let state = live.state
        let line = state.line(at: now)
        let late = Double(policy.bookingLate.components.seconds) / 60
        let slots = state.upcoming(after: now).compactMap { ticket -> (start: Double, id: TicketID)? in
            ticket.slot.map { (($0.start - now).minutes, ticket.id) }
        }
        // What each holder at home reads on its ticket now: it leaves when that falls below its journey.
        let told = live.estimator.schedule(through: ahead, in: state, at: now).map { $0.point.minutes }
        // What the runs read of each holder ahead, looked up once (the runs draw, in the same order, what differs).
        let known = line.prefix(ahead).enumerated().map { position, ticket in
            OracleRun.Known(
                slot: ticket.slot,
                calledAgo: state.callTime(of: ticket.id, at: now).map { (now - $0).minutes },
                told: told[position],
                atDoor: atDoor.contains(ticket.id),
                shopper: shoppers[ticket.id].map { (leftHome: $0.leftHome, says: $0.plan.saysMinutes) }
            )
        }
        let elapsedInside = inside.values.map { (now - $0).minutes }
        var calls: [Double] = []
        for _ in 0..<Self.oracleRuns {
            var run = OracleRun(capacity: scenario.capacity, window: Double(scenario.callWindowMinutes))
            // The people inside leave after what is left of their visits.
            for elapsed in elapsedInside {
                run.departures.frees(at: scenario.remainingVisitMinutes(after: elapsed, &random))
            }
            run.inside = inside.count
            // The line ahead, and the ticket itself at its end.
            for holder in known { run.line.append(self.holder(holder, late: late, at: now)) }
            run.line.append(OracleRun.Holder(arrives: 0, visit: 0))
            // The bookings to come that come: from their arrival (not before their slot) to the end of its window.
            run.bookings = slots.compactMap { slot -> OracleRun.Holder? in
                guard !random.chance(scenario.noShow) else { return nil }
                let arrival = slot.start + min(max(1 + 2 * random.normal(), -2), 7)
                return OracleRun.Holder(
                    arrives: max(arrival, slot.start),
                    visit: visit(slot.id),
                    gone: slot.start + late
                )
            }
            calls.append(run.callOfLast())
        }
        calls.sort()
        func quantile(_ q: Double) -> Duration { .minutes(calls[min(Int(q * Double(calls.count)), calls.count - 1)]) }
        return WaitRange(point: quantile(0.5), low: quantile(0.1), high: quantile(0.9))
    }

    /// A holder of the line as this run draws it: at the door; a booking on its way (it comes in on a free place
    /// in its window, as at the door); an app holder on the way, or at home — who leaves when called or when its
    /// ticket's wait falls below its journey, whichever is first — or who never comes.
    func holder(_ known: OracleRun.Known, late: Double, at now: Timestamp) -> OracleRun.Holder {
        let visit = visit(says: known.shopper?.says)
        let calledAt = known.calledAgo.map { -$0 }
        guard !known.atDoor, let shopper = known.shopper else {
            return OracleRun.Holder(arrives: 0, visit: visit, calledAt: calledAt)
        }
        if let slot = known.slot {
            // Past its latest arrival and not at the door: it is not coming.
            let start = (slot.start - now).minutes
            let arrives = start + 7 < 0 ? Double.infinity : max(start + random.uniform(max(-2, -start)...7), start)
            return OracleRun.Holder(arrives: arrives, visit: visit, calledAt: calledAt, gone: start + late)
        }
        let journey = scenario.travelMinutes
        if let left = shopper.leftHome {
            // On the way since `left`: a journey longer than it has been on it so far.
            let gone = (now - left).minutes
            let travel =
                gone >= journey.upperBound ? gone : random.uniform(max(journey.lowerBound, gone)...journey.upperBound)
            return OracleRun.Holder(arrives: travel - gone, visit: visit, calledAt: calledAt)
        }
        guard !random.chance(scenario.noShow) else {
            return OracleRun.Holder(arrives: .infinity, visit: visit, calledAt: calledAt)
        }
        let travel = random.uniform(journey)
        return OracleRun.Holder(leaves: max(known.told - travel, 0), travel: travel, visit: visit, calledAt: calledAt)
    }

    /// A visit drawn as the scenario draws them (a booking that said its stay: about that).
    func visit(_ id: TicketID) -> Double { visit(says: shoppers[id]?.plan.saysMinutes) }

    func visit(says: Int?) -> Double {
        if let says { return Double(says) * random.logNormal(mean: 1, sd: 0.2) }
        return scenario.visitMinutes(&random)
    }
}

/// One forward run of the oracle: the door's rule on the queue's rule — the first (capacity − inside) of the line
/// are called; a called holder at the door comes in; a booking at the door comes in on a free place within its
/// window, called or not; a called holder not there by the end of the call window loses its ticket. Minutes
/// from now.
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
    var inside = 0
    var departures = ForwardRun()
    var line: [Holder] = []
    var bookings: [Holder] = []
    var clock = 0.0

    init(capacity: Int, window: Double) {
        self.capacity = capacity
        self.window = window
    }

    var free: Int { max(capacity - inside, 0) }

    /// When the line's last holder is called.
    mutating func callOfLast() -> Double {
        while clock < 24 * 60 {
            settle()
            if line.count <= free { return clock }
            // The next thing that happens: someone leaves, a called holder or a booking comes or runs out of time.
            // (Each time compared on its own: an array literal of the two, per holder per event, was a third of
            // a drawn store's benchmark time in allocations.)
            var next = Double.infinity
            func consider(_ time: Double) { if time > clock { next = min(next, time) } }
            for (i, holder) in line.dropLast().enumerated() where i < free || holder.gone != nil {
                consider(holder.at)
                consider(holder.lost(window: window))
            }
            for booking in bookings {
                consider(booking.at)
                consider(booking.lost(window: window))
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
    /// called, never let in here.
    mutating func settle() {
        var changed = true
        while changed {
            changed = false
            bookings.removeAll { $0.lost(window: window) < clock }
            if free > 0, let index = bookings.firstIndex(where: { $0.at <= clock }) {
                admit(visit: bookings.remove(at: index).visit)
                changed = true
                continue
            }
            for i in 0..<(line.count - 1) {
                let holder = line[i]
                if i < free && holder.calledAt == nil { line[i].calledAt = clock }
                let called = i < free || holder.gone != nil
                if called && free > 0 && line[i].at <= clock {
                    admit(visit: line.remove(at: i).visit)
                    changed = true
                    break
                }
                if line[i].lost(window: window) <= clock && line[i].at > clock {
                    line.remove(at: i)
                    changed = true
                    break
                }
            }
        }
    }

    mutating func admit(visit: Double) {
        inside += 1
        departures.frees(at: clock + visit)
    }
}

/// The times places free up in one forward run: a min-heap (minutes from now).
struct ForwardRun {
    private var times: [Double] = []

    var peek: Double? { times.first }

    mutating func frees(at time: Double) {
        times.append(time)
        var child = times.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard times[child] < times[parent] else { break }
            times.swapAt(child, parent)
            child = parent
        }
    }

    mutating func next() -> Double? {
        guard !times.isEmpty else { return nil }
        let first = times[0]
        let last = times.removeLast()
        if !times.isEmpty {
            times[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                var smallest = parent
                if left < times.count, times[left] < times[smallest] { smallest = left }
                if left + 1 < times.count, times[left + 1] < times[smallest] { smallest = left + 1 }
                guard smallest != parent else { break }
                times.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first
    }
}
