/// One roll of the line forward (``WaitEstimator``): expected places freed per grid step, and who takes them.
struct LineRoll {
    let estimator: WaitEstimator
    let state: QueueState
    /// When the roll starts (now, or the opening), and how long until then.
    let start: Timestamp
    let untilStart: Duration
    /// Expected places freed in each step by called tickets that never come (their call window ends then).
    var expiries: [Double]
    /// Those who hold a place and free it as their delay and visit end: the places they free in a step are
    /// summed when the roll reaches it (``freed(in:)``), so a roll that calls the place it is asked about in a
    /// few steps pays for those steps, not for every holder's whole visit.
    var releases: [Release] = []
    /// Everyone whose leaving frees a place, for the count's spread at the end.
    var holders: [Holder] = []
    /// Today's admissions by how many steps ago they were (who may still be inside), and the share of them
    /// inside now.
    var insiders: [(elapsed: Int, count: Double)] = []
    var insiderScale = 0.0
    /// ``insidersLeaving(in:)`` of the steps computed so far.
    var insidersFreed: [Double] = []

    /// A place holder: from step `from` it frees its place per `pmf` (probability per step), having held it
    /// `elapsed` steps already (its chances are those beyond), with weight `weight`.
    struct Holder {
        var from: Int
        var elapsed: Int
        var weight: Double
        var cdf: [Double]

        /// The chance it has freed its place by `step`.
        func freed(by step: Int) -> Double {
            guard step > from else { return 0 }
            let done = cdf[min(elapsed, cdf.count - 1)]
            let left = 1 - done
            guard left > 1e-9 else { return weight }
            return weight * (cdf[min(elapsed + step - from, cdf.count - 1)] - done) / left
        }
    }

    /// From step `from`, frees `scale` × `pmf[elapsed + k]` places in step `from + k` (`scale`: its weight over
    /// the chance it had not freed its place in its first `elapsed` steps).
    struct Release {
        var from: Int
        var elapsed: Int
        var scale: Double
        var pmf: [Double]

        func freed(in step: Int) -> Double {
            let index = elapsed + step - from
            return step >= from && index < pmf.count ? scale * pmf[index] : 0
        }
    }

    init(estimator: WaitEstimator, state: QueueState, now: Timestamp) {
        self.estimator = estimator
        self.state = state
        start = state.opensAt(after: now) ?? now
        untilStart = start - now
        expiries = [Double](repeating: 0, count: WaitEstimator.horizonSteps + 1)
    }

    static var step: Duration { WaitEstimator.step }

    func steps(_ duration: Duration) -> Int { max(Int(duration.components.seconds / Self.step.components.seconds), 0) }

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

    /// The told waits of the line's places 0…`position`; with `everyRange` false only the last gets its range
    /// (the others are points), which is what one ticket's page needs.
    mutating func run(through position: Int, everyRange: Bool = true) -> [WaitRange] {
        guard position >= 0 else { return [] }
        // After closing, before the next day's start: nobody is called (the next day starts within a second).
        guard state.isOpen(at: start) else { return Array(repeating: .zero, count: position + 1) }
        let free = state.freePlaces
        // A place free for it now calls it at once (the roll's first step would say so) unless a booking joins
        // in that step and claims it first: the roll is not needed, however long the called part of the line.
        if position < free, state.upcomingJoins(after: start, through: start + Self.step).isEmpty {
            return Array(repeating: WaitRange.zero.after(untilStart), count: position + 1)
        }
        let line = state.line(at: start)
        let called = min(line.count, free)
        var told = [WaitRange](repeating: WaitRange.zero.after(untilStart), count: min(position + 1, called))
        guard position >= called else { return told }
        seatInsiders()
        for ticket in line.prefix(called) {
            let calledAt = state.callTime(ofCalled: ticket.id) ?? start
            hold(ticket, at: 0, elapsed: steps(start - calledAt))
        }
        // Bookings join at their slot's start: looked up when the roll reaches it.
        let horizon = start + Self.step * WaitEstimator.horizonSteps
        let joining = state.upcomingJoins(after: start, through: horizon)
        var nextBooking = 0
        var bookingDemand = 0.0
        var cumulative = Double(free - called)
        var next = called
        var step = 0
        while told.count <= position {
            if step >= WaitEstimator.horizonSteps {
                told += extrapolated(
                    from: told.count,
                    through: position,
                    cumulative: cumulative,
                    demand: bookingDemand,
                    called: called
                )
                break
            }
            cumulative += freed(in: step) + insidersLeaving(in: step)
            while nextBooking < joining.count, steps(after: joining[nextBooking].joined) <= step {
                if let booking = state.ticket(joining[nextBooking].id), booking.slot != nil {
                    let show = 1 - estimator.model.noShow
                    bookingDemand += show
                    hold(booking, at: step, elapsed: 0, weight: show)
                }
                nextBooking += 1
            }
            // `told` holds a wait for each place called so far: the next place is `next` (= told.count).
            while told.count <= position, cumulative >= Double(next - called + 1) + bookingDemand - 0.5 {
                let point = WaitRange(point: Self.step * step, low: Self.step * step, high: Self.step * step)
                // A place free now calls it at once, no range about it (nor a booking's claim: it holds its own).
                let certain = next < free && bookingDemand == 0
                told.append(
                    (everyRange || told.count == position) && !certain ? range(at: step) : point.after(untilStart)
                )
                if next < line.count { hold(line[next], at: step, elapsed: 0) }
                next += 1
            }
            step += 1
        }
        return told
    }

    // MARK: - Who frees places

    /// The places those called are expected to free in `step`.
    func freed(in step: Int) -> Double {
        var total = expiries[step]
        for release in releases { total += release.freed(in: step) }
        return total
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
            insiders.append((elapsed, count))
            stillIn += count * (1 - cdf[elapsed])
        }
        if stillIn > 1e-6 {
            insiderScale = inside / stillIn
        } else {
            // Inside for longer than visits last (a missed exit, or no admission seen today): as if halfway.
            insiders = [(steps(.minutes(estimator.model.visit.meanMinutes / 2)), inside / (1 - cdf[0]))]
            insiderScale = 1
        }
    }

    /// The places the people inside are expected to free in `step` (computed once a step).
    mutating func insidersLeaving(in step: Int) -> Double {
        while insidersFreed.count <= step {
            let at = insidersFreed.count
            let cdf = estimator.visitCDF
            let last = cdf.count - 1
            var total = 0.0
            for (elapsed, count) in insiders where elapsed + at < last {
                total += count * (cdf[min(elapsed + at + 1, last)] - cdf[elapsed + at])
            }
            insidersFreed.append(total * insiderScale)
        }
        return insidersFreed[step]
    }

    /// `ticket` takes a place at `step` (having held it `elapsed` steps already): the place is freed as its
    /// delay and visit end, or — for an app ticket or booking that may never come — at the call window's end.
    mutating func hold(_ ticket: Ticket, at step: Int, elapsed: Int, weight: Double = 1) {
        let (pmf, cdf) = holding(ticket, calledAt: step - elapsed)
        var comes = weight
        if ticket.kind != .paper {
            // The chance it never comes, given it has not come in `elapsed` steps.
            let noShow = estimator.model.noShow
            let late = 1 - cdf[min(elapsed, cdf.count - 1)]
            let never = noShow / max(noShow + (1 - noShow) * late, 1e-9)
            let expiry = steps(estimator.callWindow) - elapsed
            if expiry >= 0, step + expiry < expiries.count { expiries[step + expiry] += weight * never }
            holders.append(
                Holder(from: step, elapsed: 0, weight: weight * never, cdf: Self.stepCDF(at: max(expiry, 0)))
            )
            comes = weight * (1 - never)
        }
        let done = cdf[min(elapsed, cdf.count - 1)]
        let left = max(1 - done, 1e-9)
        releases.append(Release(from: step, elapsed: elapsed, scale: comes / left, pmf: pmf))
        holders.append(Holder(from: step, elapsed: elapsed, weight: comes, cdf: cdf))
    }

    /// A ticket's holding time when called at step `calledAt` (negative: before the roll's start): delay to the
    /// door, then the visit (a booking's own expected visit, R20; an app ticket that waited long enough to plan
    /// its trip, the planned delay).
    func holding(_ ticket: Ticket, calledAt: Int) -> WaitEstimator.Hold {
        switch ticket.kind {
        case .paper:
            return estimator.paperHold
        case .booking:
            if let minutes = ticket.slot?.expectedVisitMinutes, minutes > 0 {
                return estimator.bookingHold(minutes: minutes)
            }
            return estimator.appHold
        case .app:
            let call = start.milliseconds + Int64(calledAt) * Self.stepMilliseconds
            return state.hadTimeToPlanTrip(ticket.id, calledAt: call) ? estimator.plannedAppHold : estimator.appHold
        }
    }

    static func cdf(_ pmf: [Double]) -> [Double] {
        var total = 0.0
        return [0]
            + pmf.map {
                total += $0
                return total
            }
    }

    /// A CDF that steps from 0 to 1 after `steps` steps.
    static func stepCDF(at steps: Int) -> [Double] {
        (0...(steps + 1)).map { $0 > steps ? 1 : 0 }
    }

    // MARK: - The told range

    /// The wait of a place called at `step`: its spread is the count's, turned into time at the pace places free
    /// then.
    mutating func range(at step: Int) -> WaitRange {
        let point = Self.step * step
        let spread = countSpread(by: step).squareRoot()
        let pace = freedAround(step)
        let z = WaitEstimator.rangeZ
        guard pace > 1e-6 else { return WaitRange(point: point, low: point, high: point).after(untilStart) }
        // Steps per place near the call, times the count's spread; at least half a step either side.
        let margin = max(z * spread / pace, 0.5)
        return WaitRange(
            point: point,
            low: max(Self.step * (Double(step) - margin), .zero),
            high: Self.step * (Double(step) + margin)
        ).after(untilStart)
    }

    /// The variance of the number of places freed by `step` (each holder frees its place or not).
    func countSpread(by step: Int) -> Double {
        var variance = 0.0
        for holder in holders {
            let p = min(holder.freed(by: step), 1)
            variance += p * (1 - p)
        }
        let cdf = estimator.visitCDF
        let last = cdf.count - 1
        for (elapsed, count) in insiders {
            let p = min(insiderScale * (cdf[min(elapsed + step, last)] - cdf[elapsed]), 1)
            variance += count * p * (1 - p)
        }
        return variance
    }

    /// Places freed per step around `step` (over ten minutes).
    mutating func freedAround(_ step: Int) -> Double {
        let window = steps(.seconds(300))
        let from = max(step - window, 0)
        let to = min(step + window, expiries.count - 1)
        var total = 0.0
        for k in from...to { total += freed(in: k) + insidersLeaving(in: k) }
        return total / Double(to - from + 1)
    }

    /// Past the grid's horizon: the rest of the line at the steady pace (capacity ÷ a place's holding time).
    func extrapolated(
        from index: Int,
        through position: Int,
        cumulative: Double,
        demand: Double,
        called: Int
    )
        -> [WaitRange]
    {
        let hold = max(estimator.model.visit.meanMinutes, 1)
        let pace = Double(max(state.capacity, 1)) / hold  // places a minute
        let horizon = Self.step * WaitEstimator.horizonSteps
        return (index...position).map { n in
            let behind = max(Double(n - called + 1) + demand - 0.5 - cumulative, 0)
            let point = horizon + .minutes(behind / pace)
            let margin = Duration.minutes(WaitEstimator.rangeZ * (behind.squareRoot() + 1) / pace)
            return WaitRange(point: point, low: point - margin, high: point + margin).after(untilStart)
        }
    }
}
