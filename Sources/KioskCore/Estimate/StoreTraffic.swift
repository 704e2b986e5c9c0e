import FoundationEssentials

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
        /// Refusals at the door of app tickets and bookings whose window had passed ("expired", "too_late"): a
        /// holder who came after it. Two scans of one such ticket count twice (the learner caps them at
        /// ``expired``).
        public var cameAfterWindow = 0
        /// Called app tickets, and those of them that expired, by the bin of their wait in line when called
        /// (``WaitModel/noShowBin(waitedMinutes:)``).
        public var appCalledByWait = [Int](repeating: 0, count: WaitModel.noShowWaitEdges.count + 1)
        public var appExpiredByWait = [Int](repeating: 0, count: WaitModel.noShowWaitEdges.count + 1)
        /// Scored tickets (what each was told against its wait until called), by group of told wait, counted in
        /// bins of their error (``RangeCalibration``); empty until the day scores one.
        public var scored: [[Int]] = []
        /// Call → admission, in ``WaitModel/delayBinSeconds`` bins, for app tickets and bookings, for app tickets
        /// that had waited ``WaitModel/plannedWait`` or more, and for paper.
        public var appDelays: [Int] = []
        public var plannedAppDelays: [Int] = []
        public var paperDelays: [Int] = []
    }

    public private(set) var days: [Int64: Day] = [:]
    /// How far the scored tickets moved each group's calibrated range, across days (``RangeShift``).
    public private(set) var rangeShift = RangeShift()

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
            let waited = Self.waitBin(entry, calledAt: called)
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
                if let waited { day.appCalledByWait[waited] += 1 }
            }
        case .ticketExpired(let id):
            guard let entry = state.entries[id], case .waiting = entry.stage, entry.ticket.kind != .paper else {
                return
            }
            let waited = state.callTime(of: id, at: event.time).flatMap { Self.waitBin(entry, calledAt: $0) }
            count(event.time) { day, _ in
                day.called += 1
                day.expired += 1
                if let waited {
                    day.appCalledByWait[waited] += 1
                    day.appExpiredByWait[waited] += 1
                }
            }
        case .scanRefused(let reason, let id?, _) where reason == "expired" || reason == "too_late":
            guard let entry = state.entries[id], entry.ticket.kind != .paper else { return }
            count(event.time) { day, _ in day.cameAfterWindow += 1 }
        case .customerExited:
            // Someone inside, or after closing one of those still inside at closing.
            guard state.countsExit(at: event.time) else { return }
            count(event.time) { $0.exits[$1].saturatingIncrement() }
        case .letIn(let people, _, _):
            // People let in without a ticket leave by the same exit: their visits are visits too.
            let people = StaffCount.counted(people: people)
            count(event.time) { day, minute in
                for _ in 0..<people { day.admissions[minute].saturatingIncrement() }
            }
        default:
            break
        }
    }

    /// Takes a scored ticket: told `told` when it joined, called after `waited` (at `time`). A ticket told no
    /// range (a place free when it joined, a wait told as 0 minutes) says nothing of the range.
    public mutating func observe(scored told: WaitRange, waited: Duration, at time: Timestamp) {
        guard told.isToldAsRange else { return }
        let group = RangeCalibration.group(of: told.point)
        // The shift moves calibrated ranges alone: a ticket of a group told the model's own spread (a quiet
        // store's first long line) says nothing of them.
        let day = time.milliseconds.floorDivided(by: 86_400_000)
        if RangeCalibration.isCalibrated(group, before: day, in: days) {
            rangeShift.track(told: told, waited: waited, day: day)
        }
        let bin = RangeCalibration.bin(point: told.point, waited: waited)
        count(time) { day, _ in
            if day.scored.isEmpty {
                day.scored = Array(
                    repeating: Array(repeating: 0, count: RangeCalibration.binCount),
                    count: RangeCalibration.edges.count + 1
                )
            }
            day.scored[group][bin] += 1
        }
    }

    /// The no-show bin of an app ticket's wait in line when it was called (nil for paper and bookings).
    static func waitBin(_ entry: QueueState.Entry, calledAt called: Timestamp) -> Int? {
        guard entry.ticket.kind == .app, case .waiting(let joined) = entry.stage else { return nil }
        return WaitModel.noShowBin(waitedMinutes: max(called - joined, .zero).minutes)
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

extension StoreTraffic {
    private enum CodingKeys: String, CodingKey { case days, rangeShift }

    /// Traffic kept by a server before the range's shift starts unshifted.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        days = try c.decode([Int64: Day].self, forKey: .days)
        rangeShift = try c.decodeIfPresent(RangeShift.self, forKey: .rangeShift) ?? RangeShift()
    }
}

extension StoreTraffic.Day {
    private enum CodingKeys: String, CodingKey {
        case admissions, exits, called, expired, appCalledByWait, appExpiredByWait, scored, appDelays
        case plannedAppDelays, paperDelays, cameAfterWindow
    }

    /// The per-minute counts as bytes (two per minute, little-endian; base64 in JSON), not as 2,880 numbers: a
    /// store's kept state holds 28 days of them, and a start decodes them.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        admissions = try Self.counts(c.decode(Data.self, forKey: .admissions), key: .admissions, in: c)
        exits = try Self.counts(c.decode(Data.self, forKey: .exits), key: .exits, in: c)
        called = try c.decode(Int.self, forKey: .called)
        expired = try c.decode(Int.self, forKey: .expired)
        cameAfterWindow = try c.decodeIfPresent(Int.self, forKey: .cameAfterWindow) ?? 0
        // Kept by a server before the no-shows by wait: none counted.
        let bins = WaitModel.noShowWaitEdges.count + 1
        appCalledByWait =
            try c.decodeIfPresent([Int].self, forKey: .appCalledByWait).flatMap {
                $0.count == bins ? $0 : nil
            } ?? appCalledByWait
        appExpiredByWait =
            try c.decodeIfPresent([Int].self, forKey: .appExpiredByWait).flatMap {
                $0.count == bins ? $0 : nil
            } ?? appExpiredByWait
        // Counted in other bins by a server of an earlier version: not read as these (the range starts again
        // from the model's spread, and the store's own days fill it anew).
        scored =
            try c.decodeIfPresent([[Int]].self, forKey: .scored).flatMap { groups in
                groups.count == RangeCalibration.edges.count + 1
                    && groups.allSatisfy { $0.count == RangeCalibration.binCount } ? groups : nil
            } ?? []
        appDelays = try c.decode([Int].self, forKey: .appDelays)
        plannedAppDelays = try c.decode([Int].self, forKey: .plannedAppDelays)
        paperDelays = try c.decode([Int].self, forKey: .paperDelays)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.bytes(admissions), forKey: .admissions)
        try c.encode(Self.bytes(exits), forKey: .exits)
        try c.encode(called, forKey: .called)
        try c.encode(expired, forKey: .expired)
        if cameAfterWindow > 0 { try c.encode(cameAfterWindow, forKey: .cameAfterWindow) }
        try c.encode(appCalledByWait, forKey: .appCalledByWait)
        try c.encode(appExpiredByWait, forKey: .appExpiredByWait)
        if !scored.isEmpty { try c.encode(scored, forKey: .scored) }
        try c.encode(appDelays, forKey: .appDelays)
        try c.encode(plannedAppDelays, forKey: .plannedAppDelays)
        try c.encode(paperDelays, forKey: .paperDelays)
    }

    private static func bytes(_ counts: [UInt16]) -> Data {
        var data = Data(capacity: counts.count * 2)
        for count in counts { data.append(contentsOf: [UInt8(count & 0xFF), UInt8(count >> 8)]) }
        return data
    }

    private static func counts(
        _ data: Data,
        key: CodingKeys,
        in container: KeyedDecodingContainer<CodingKeys>
    ) throws -> [UInt16] {
        guard data.count == StoreTraffic.minutesPerDay * 2 else {
            throw DecodingError.dataCorruptedError(
                forKey: key,
                in: container,
                debugDescription:
                    "\(data.count) bytes, not two for each of a day's \(StoreTraffic.minutesPerDay) minutes"
            )
        }
        let bytes = [UInt8](data)
        return (0..<StoreTraffic.minutesPerDay).map { UInt16(bytes[2 * $0]) | UInt16(bytes[2 * $0 + 1]) << 8 }
    }
}
