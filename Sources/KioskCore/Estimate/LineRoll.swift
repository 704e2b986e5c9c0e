/// One roll of the line forward (``WaitEstimator``): expected places freed per grid step, and who takes them.
struct LineRoll {
    let estimator: WaitEstimator
    var state: QueueState
    /// When the roll starts (now, the opening, or the planned end of a pause), and how long until then.
    let start: Timestamp
    let untilStart: Duration
    /// Expected places freed in each step, through the grid's horizon: by called tickets that never come (their
    /// call window ends then) and by those who hold a place, as their delay and visit end. A holder adds its
    /// share to every step it may free its place in when it takes it (``hold(_:at:elapsed:weight:)``), so a
    /// step's sum costs the same however many hold places — a long line's roll, deep in the day, holds hundreds.
    var freeing: [Double]
    /// The last step whose freed places were summed (``freed(in:)``): a place taken in it frees its first
    /// step's share in the next (lost, that share — a twentieth of a place for 11-minute exponential visits —
    /// would compound with every turn of the store's places and slow a long line's roll by half at its end).
    var counted = -1
    /// Everyone whose leaving frees a place, for the count's spread at the end (``countSpread(by:)``): those
    /// whose chances may still change, and what those that played out add.
    var holders: [Holder] = []
    var settledSpread = 0.0
    var nextSettling = 0
    /// Today's admissions by how many steps ago they were, every step (who may still be inside; a step of no
    /// admission zero, so that ``insidersLeaving(in:)`` is a dot product), and the share of them inside now.
    var insiders: [Double] = []
    var insiderScale = 0.0
    /// ``insidersLeaving(in:)`` of the steps computed so far.
    var insidersFreed: [Double] = []
    /// Places taken in step `pendingStep` not yet added to ``freeing``, summed by holding time: a big store's
    /// roll calls several places a step, each adding its whole holding time (hundreds of steps) to `freeing`;
    /// those of one kind add it once (``pend(_:_:at:scale:)``). Added before any step is read. The kinds apart:
    /// looked through for every place, they are read without touching the holding times' arrays.
    var pendingKinds: [HoldKind] = []
    var pending: [(pmf: [Double], scale: Double)] = []
    var pendingStep = 0
    /// The calibrated range told in a step (``range(at:)``).
    var calibratedInStep: (step: Int, range: WaitRange)?

    /// A place holder: from step `from` it frees its place per `pmf` (probability per step), having held it
    /// `elapsed` steps already (its chances are those beyond), with weight `weight`.
    struct Holder {
        var from: Int
        var elapsed: Int
        var weight: Double
        var cdf: [Double]

        /// Whether its chance of having freed its place is the same from `step` on.
        func isSettled(by step: Int) -> Bool {
            step > from && elapsed + step - from >= cdf.count - 1
        }

        /// The chance it has freed its place by `step`.
        func freed(by step: Int) -> Double {
            guard step > from else { return 0 }
            let done = cdf[min(elapsed, cdf.count - 1)]
            let left = 1 - done
            guard left > 1e-9 else { return weight }
            return weight * (cdf[min(elapsed + step - from, cdf.count - 1)] - done) / left
        }
    }

    init(estimator: WaitEstimator, state: QueueState, now: Timestamp) {
        self.estimator = estimator
        self.state = state
        start = state.callsStart(after: now) ?? now
        untilStart = start - now
        freeing = [Double](repeating: 0, count: WaitEstimator.horizonSteps + 1)
    }

    static var step: Duration { WaitEstimator.step }

    func steps(_ duration: Duration) -> Int { WaitEstimator.steps(duration) }

    /// Whole steps from `start` back to `time` (in milliseconds: `Duration`'s arithmetic costs a 128-bit
    /// multiplication, and a big store's roll does this for each of the day's admissions).
    func steps(before time: Timestamp) -> Int {
        max(Int((start.milliseconds - time.milliseconds) / Self.stepMilliseconds), 0)
    }

    /// Whole steps from `start` on to `time`.
    func steps(after time: Timestamp) -> Int {
        max(Int((time.milliseconds - start.milliseconds) / Self.stepMilliseconds), 0)
    }

    static let stepMilliseconds = Int64(WaitEstimator.step.components.seconds) * 1000

    /// Where a roll stands between two calls of ``run(through:everyRange:)``: the places told so far, and what
    /// it needs to tell the next ones (a roll is resumed, by the server's cache, as tickets join the line's end).
    struct Progress {
        var told: [WaitRange] = []
        var line: [Place] = []
        var joining: [(joined: Timestamp, id: TicketID)] = []
        var nextBooking = 0
        var bookingDemand = 0.0
        var cumulative = 0.0
        var next = 0
        var step = 0
        var free = 0
        var called = 0
        /// Nothing to roll: the store is closed.
        var settled = false
    }

    var progress: Progress?
    /// Set once the roll tells a changed line (``realign(to:at:)``): its place `p` is the roll's `p + shift`, and
    /// the first `free` are called now.
    var realigned: (shift: Int, free: Int)?

    /// The told waits of the line's places 0…`position`; with `everyRange` false only the last gets its range
    /// (the others are points), which is what one ticket's page needs. Called again with a later position, it
    /// goes on from where it stopped.
    mutating func run(through position: Int, everyRange: Bool = true) -> [WaitRange] {
        guard position >= 0 else { return [] }
        if let now = calledNow(position) { return Array(repeating: now, count: position + 1) }
        advance(through: position, everyRange: everyRange)
        return Array((progress?.told ?? []).prefix(position + 1))
    }

    /// The told wait of the place `position` alone, every place's range computed on the way: what a kept roll
    /// is asked again and again (without a copy of the places before it).
    mutating func wait(at position: Int) -> WaitRange {
        guard position >= 0 else { return .zero }
        if let now = calledNow(position) { return now }
        var place = position
        if let realigned {
            guard position >= realigned.free else { return WaitRange.zero.after(untilStart) }
            place += realigned.shift
        }
        advance(through: place, everyRange: true)
        guard let told = progress?.told, place < told.count else { return .zero }
        return told[place]
    }

    /// A place free for it now calls it at once (the roll's first step would say so) unless a booking joins in
    /// that step and claims it first: the roll is not needed, however long the called part of the line.
    private func calledNow(_ position: Int) -> WaitRange? {
        guard progress == nil, state.isOpen(at: start), position < state.freePlaces,
            state.upcomingJoins(after: start, through: start + Self.step).isEmpty
        else { return nil }
        return WaitRange.zero.after(untilStart)
    }

    private mutating func advance(through position: Int, everyRange: Bool) {
        if progress == nil { progress = begin() }
        // Taken out while it grows: a copy left behind would make each call copy the places told so far.
        guard var p = progress.take() else { return }
        defer { progress = p }
        if p.settled {
            // Closed: nobody is called before the next day's start, a second away.
            if p.told.count <= position { p.told += Array(repeating: .zero, count: position + 1 - p.told.count) }
            return
        }
        while p.told.count <= position {
            if p.step >= WaitEstimator.horizonSteps {
                p.told += extrapolated(
                    from: p.told.count,
                    through: position,
                    cumulative: p.cumulative,
                    demand: p.bookingDemand,
                    called: p.called
                )
                break
            }
            p.cumulative += freed(in: p.step) + insidersLeaving(in: p.step)
            while p.nextBooking < p.joining.count, steps(after: p.joining[p.nextBooking].joined) <= p.step {
                let (joined, id) = p.joining[p.nextBooking]
                if let booking = state.ticket(id), booking.slot != nil {
                    let show = 1 - estimator.model.bookingNoShow
                    p.bookingDemand += show
                    hold(Place(joined: joined, id: id, kind: .booking), at: p.step, elapsed: 0, weight: show)
                }
                p.nextBooking += 1
            }
            // `told` holds a wait for each place called so far: the next place is `next` (= told.count).
            while p.told.count <= position, p.cumulative >= Double(p.next - p.called + 1) + p.bookingDemand - 0.5 {
                let at = Self.step * p.step
                let point = WaitRange(point: at, low: at, high: at)
                // A place free now calls it at once, no range about it (nor a booking's claim: it holds its own).
                let certain = p.next < p.free && p.bookingDemand == 0
                p.told.append(
                    (everyRange || p.told.count == position) && !certain ? range(at: p.step) : point.after(untilStart)
                )
                if p.next < p.line.count { hold(p.line[p.next], at: p.step, elapsed: 0) }
                p.next += 1
            }
            p.step += 1
        }
    }

    /// The roll before its first step: those called now hold their places, the people inside are seated.
    private mutating func begin() -> Progress {
        var p = Progress()
        // After closing, before the next day's start: nobody is called (the next day starts within a second).
        guard state.isOpen(at: start) else {
            p.settled = true
            return p
        }
        p.free = state.freePlaces
        p.line = state.linePlaces(at: start)
        p.called = min(p.line.count, p.free)
        p.told = Array(repeating: WaitRange.zero.after(untilStart), count: p.called)
        seatInsiders()
        for place in p.line.prefix(p.called) {
            let calledAt = state.callTime(ofCalled: place.id, at: start) ?? start
            hold(place, at: 0, elapsed: steps(start - calledAt))
        }
        // Bookings join at their slot's start: looked up when the roll reaches it.
        p.joining = state.upcomingJoins(after: start, through: bookingHorizon)
        p.cumulative = Double(p.free - p.called)
        p.next = p.called
        return p
    }

    /// Whether the roll can go on over `newer`, a state whose only change is `joined` tickets at the line's end
    /// (app tickets taken since): they join the roll's line, and the places told so far stand.
    mutating func extend(to newer: QueueState, joined: [TicketID]) -> Bool {
        guard progress?.settled == false else { return false }
        let places = joined.compactMap { newer.lineKey(of: $0) }
        guard places.count == joined.count else { return false }
        state = newer
        join(places)
        return true
    }

    // MARK: - Who frees places

    /// The places those called are expected to free in `step`.
    mutating func freed(in step: Int) -> Double {
        schedulePending()
        counted = max(counted, step)
        return step < freeing.count ? freeing[step] : 0
    }

    /// Today's admissions within the visit's reach, and the share of them still inside: the count inside over
    /// the chance each is still inside.
    mutating func seatInsiders() {
        let inside = Double(state.inside)
        guard inside > 0 else { return }
        let cdf = estimator.visitCDF
        let reach = estimator.visitReach
        // Today's admissions, latest last: only those within a visit's reach may still be inside.
        var byElapsed = [Double](repeating: 0, count: reach)
        for admitted in state.admissionsToday.reversed() where admitted <= start {
            let elapsed = steps(before: admitted)
            guard elapsed < reach else { break }
            byElapsed[elapsed] += 1
        }
        var stillIn = 0.0
        for (elapsed, count) in byElapsed.enumerated() where count > 0 {
            stillIn += count * (1 - cdf[elapsed])
        }
        if stillIn > 1e-6 {
            insiders = byElapsed
            insiderScale = inside / stillIn
        } else {
            // Inside for longer than visits last (a missed exit, or no admission seen today): as if halfway.
            let halfway = steps(.minutes(estimator.model.visit.meanMinutes / 2))
            insiders = Array(repeating: 0, count: halfway) + [inside / (1 - cdf[0])]
            insiderScale = 1
        }
    }

    /// The places the people inside are expected to free in `step` (computed once a step).
    mutating func insidersLeaving(in step: Int) -> Double {
        let ends = estimator.visitEnds
        while insidersFreed.count <= step {
            let at = insidersFreed.count
            // Σ count(elapsed) × P(a visit ends in step elapsed + at): a dot product over contiguous steps, in
            // four running sums (one would wait on each addition; a long line's roll reads hundreds of steps).
            let count = max(min(insiders.count, ends.count - at), 0)
            var sums = SIMD4<Double>()
            insiders.withUnsafeBufferPointer { inside in
                ends.withUnsafeBufferPointer { ends in
                    var elapsed = 0
                    while elapsed + 4 <= count {
                        sums += SIMD4(inside[elapsed..<elapsed + 4]) * SIMD4(ends[elapsed + at..<elapsed + at + 4])
                        elapsed += 4
                    }
                    while elapsed < count {
                        sums[0] += inside[elapsed] * ends[elapsed + at]
                        elapsed += 1
                    }
                }
            }
            insidersFreed.append(sums.sum() * insiderScale)
        }
        return insidersFreed[step]
    }

    /// A ticket of the roll's line: its kind, and when it joined (an app ticket's no-show and trip depend on it),
    /// as the line keeps it.
    typealias Place = LineKey

    /// `ticket` takes a place at `step` (having held it `elapsed` steps already): the place is freed as its
    /// delay and visit end, or — for an app ticket or booking that may never come — at the call window's end.
    mutating func hold(_ ticket: Place, at step: Int, elapsed: Int, weight: Double = 1) {
        let (kind, (pmf, cdf)) = holding(ticket, calledAt: step - elapsed)
        var comes = weight
        if ticket.kind != .paper {
            // The chance it never comes, given it has not come in `elapsed` steps: an app ticket's by how long
            // it will have waited in line when called.
            let noShow = self.noShow(ticket, calledAt: step - elapsed)
            let late = 1 - cdf[min(elapsed, cdf.count - 1)]
            let never = noShow / max(noShow + (1 - noShow) * late, 1e-9)
            let expiry = estimator.windowSteps - elapsed
            let expires = max(step + expiry, counted + 1)  // a step already summed: the next
            if expiry >= 0, expires < freeing.count { freeing[expires] += weight * never }
            let window =
                expiry == estimator.windowSteps ? estimator.windowCDF : WaitEstimator.stepCDF(at: max(expiry, 0))
            holders.append(Holder(from: step, elapsed: 0, weight: weight * never, cdf: window))
            comes = weight * (1 - never)
        }
        let done = cdf[min(elapsed, cdf.count - 1)]
        let left = max(1 - done, 1e-9)
        if elapsed == 0 {
            pend(kind, pmf, at: step, scale: comes / left)
        } else {
            schedule(pmf, from: step, elapsed: elapsed, scale: comes / left)
        }
        holders.append(Holder(from: step, elapsed: elapsed, weight: comes, cdf: cdf))
    }

    /// From step `from`, `scale` × `pmf[elapsed + k]` places freed in step `from + k`; a place taken in a step
    /// already summed frees that step's share in the next.
    mutating func schedule(_ pmf: [Double], from: Int, elapsed: Int, scale: Double) {
        guard elapsed < pmf.count, from < freeing.count else { return }
        let end = min(pmf.count - elapsed, freeing.count - from)
        // The first step's share apart, so that the rest is one loop without a branch (the compiler vectorizes
        // it: this loop is most of a long line's roll).
        let first = from <= counted ? from + 1 : from
        if first < freeing.count { freeing[first] += scale * pmf[elapsed] }
        guard end > 1 else { return }
        pmf.withUnsafeBufferPointer { pmf in
            freeing.withUnsafeMutableBufferPointer { freeing in
                let source = pmf.baseAddress! + elapsed
                let target = freeing.baseAddress! + from
                for k in 1..<end { target[k] += scale * source[k] }
            }
        }
    }

    /// The chance a called app ticket or booking never comes: a booking's, the bookings' share; an app
    /// ticket's, that of tickets which had waited in line as long as this one will have when called at step
    /// `calledAt`.
    func noShow(_ ticket: Place, calledAt: Int) -> Double {
        if ticket.kind == .booking { return estimator.model.bookingNoShow }
        guard ticket.kind == .app else { return estimator.model.noShow }
        let call = start.milliseconds + Int64(calledAt) * Self.stepMilliseconds
        return estimator.model.appNoShow(waitedMinutes: Double(max(call - ticket.joined.milliseconds, 0)) / 60_000)
    }

    /// A ticket's holding time when called at step `calledAt` (negative: before the roll's start): delay to the
    /// door, then the visit (a booking's own expected visit, R20; an app ticket that waited long enough to plan
    /// its trip, the planned delay).
    func holding(_ ticket: Place, calledAt: Int) -> (HoldKind, WaitEstimator.Hold) {
        switch ticket.kind {
        case .paper:
            return (.paper, estimator.paperHold)
        case .booking:
            if let minutes = state.ticket(ticket.id)?.slot?.expectedVisitMinutes, minutes > 0 {
                return (.booking(minutes: minutes), estimator.bookingHold(minutes: minutes))
            }
            return (.app, estimator.appHold)
        case .app:
            let call = start.milliseconds + Int64(calledAt) * Self.stepMilliseconds
            guard QueueState.hadTimeToPlanTrip(joined: ticket.joined, calledAt: call) else {
                return (.app, estimator.appHold)
            }
            return (.plannedApp, estimator.plannedAppHold)
        }
    }

    /// Which of the estimator's holding times a place is held for (``holding(_:calledAt:)``).
    enum HoldKind: Equatable {
        case paper, app, plannedApp
        case booking(minutes: Int)
    }

    /// A place taken at `step` from its start (held no step yet), freed per `pmf` × `scale`: summed with the
    /// step's others of its kind until a step is read.
    mutating func pend(_ kind: HoldKind, _ pmf: [Double], at step: Int, scale: Double) {
        if step != pendingStep {
            schedulePending()
            pendingStep = step
        }
        if let index = pendingKinds.firstIndex(of: kind) {
            pending[index].scale += scale
        } else {
            pendingKinds.append(kind)
            pending.append((pmf, scale))
        }
    }

    /// Adds the pending places to ``freeing`` (before a step is read: ``freed(in:)``, ``freedAround(_:)``).
    mutating func schedulePending() {
        guard !pending.isEmpty else { return }
        for hold in pending { schedule(hold.pmf, from: pendingStep, elapsed: 0, scale: hold.scale) }
        pending.removeAll(keepingCapacity: true)
        pendingKinds.removeAll(keepingCapacity: true)
    }
}
