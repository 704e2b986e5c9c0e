/// What a store's log says about its line, gathered as its events are folded (``observe(_:before:)``), in the
/// small form the wait model is learnt from: admissions and exits counted per minute, by day (anonymous: counts,
/// no tickets), the called app tickets and bookings that came or not, and how long called tickets took to reach
/// the door. A day of a busy store takes about 3 KB; ``keptDays`` of them are kept.
public struct StoreTraffic: Sendable, Equatable, Codable {
    /// Minutes a day; a day is a UTC day (minute `m` of day `d` is `d × 1440 + m` minutes since 1970).
    static let minutesPerDay = 1440
    /// The days the model is learnt from.
    public static let keptDays = 28

    public struct Day: Sendable, Equatable, Codable {
        /// Admissions and exits per minute (saturating at 65,535).
        public var admissions = [UInt16](repeating: 0, count: StoreTraffic.minutesPerDay)
        public var exits = [UInt16](repeating: 0, count: StoreTraffic.minutesPerDay)
        /// Called app tickets and bookings, and those of them that expired.
        public var called = 0
        public var expired = 0
        /// Call → admission, in ``WaitModel/delayBinSeconds`` bins, for app tickets and bookings, for app tickets
        /// that had waited ``WaitModel/plannedWait`` or more, and for paper.
        public var appDelays: [Int] = []
        public var plannedAppDelays: [Int] = []
        public var paperDelays: [Int] = []
    }

    public private(set) var days: [Int64: Day] = [:]

    public init() {}

    /// Takes `event` into account; `state` is the store's queue before it is applied (who was called when).
    public mutating func observe(_ event: StoreEvent, before state: QueueState) {
        switch event.body {
        case .ticketAdmitted(let id, _):
            // An admission the fold takes (a second one of a ticket is a conflict, not a second person); one
            // pushed late, of a day already over, is still someone who came in.
            guard let entry = state.entries[id] else { return }
            if case .admitted = entry.stage { return }
            count(event.time) { $0.admissions[$1].saturatingIncrement() }
            guard let called = state.callTime(of: id, at: event.time) else { return }
            let bin = max(Int((event.time - called).components.seconds) / WaitModel.delayBinSeconds, 0)
            let capped = min(bin, 39)
            let planned = entry.ticket.kind == .app && state.hadTimeToPlanTrip(id, calledAt: called.milliseconds)
            count(event.time) { day, _ in
                if entry.ticket.kind == .paper {
                    Self.add(capped, to: &day.paperDelays)
                } else if planned {
                    Self.add(capped, to: &day.plannedAppDelays)
                    day.called += 1
                } else {
                    Self.add(capped, to: &day.appDelays)
                    day.called += 1
                }
            }
        case .ticketExpired(let id):
            guard let entry = state.entries[id], case .waiting = entry.stage, entry.ticket.kind != .paper else {
                return
            }
            count(event.time) { day, _ in
                day.called += 1
                day.expired += 1
            }
        case .customerExited:
            // Someone inside, or after closing one of those still inside at closing.
            guard state.countsExit(at: event.time) else { return }
            count(event.time) { $0.exits[$1].saturatingIncrement() }
        default:
            break
        }
    }

    /// Forgets the days before `now` − ``keptDays``.
    public mutating func prune(now: Timestamp) {
        let first = now.milliseconds.floorDivided(by: 86_400_000) - Int64(Self.keptDays)
        days = days.filter { $0.key >= first }
    }

    /// The traffic of `events` (a stretch of the log, oldest first, folded from an empty queue of `capacity`).
    public static func of(_ events: some Sequence<StoreEvent>, capacity: Int) -> StoreTraffic {
        var traffic = StoreTraffic()
        var state = QueueState(capacity: capacity)
        for event in events {
            traffic.observe(event, before: state)
            state.apply(event)
        }
        return traffic
    }

    private mutating func count(_ time: Timestamp, _ change: (inout Day, Int) -> Void) {
        let minutes = time.milliseconds.floorDivided(by: 60_000)
        let day = minutes.floorDivided(by: Int64(Self.minutesPerDay))
        change(&days[day, default: Day()], Int(minutes - day * Int64(Self.minutesPerDay)))
    }

    private static func add(_ bin: Int, to histogram: inout [Int]) {
        if histogram.count <= bin { histogram += Array(repeating: 0, count: bin + 1 - histogram.count) }
        histogram[bin] += 1
    }
}

extension UInt16 {
    /// Adds one, staying at the largest value rather than wrapping.
    mutating func saturatingIncrement() {
        if self < .max { self += 1 }
    }
}
