/// Learning a store's ``WaitModel`` from its ``StoreTraffic``. Exits are anonymous (no personal data: nobody's
/// visit is ever known), so the visit length comes from the two anonymous series the door writes, admissions and
/// exits: the exits expected by time t are the sum, over everyone admitted before t, of the chance that a visit
/// begun then has ended (a Poisson process whose intensity is the admissions convolved with the visit's density).
/// The visit length (log-normal or gamma) that makes the exits seen most likely is the store's (maximum
/// likelihood, on bins of a few minutes), its mean from Little's law (person-minutes inside ÷ admissions). A
/// store whose door does not count exits (fewer than ``minimumExitShare`` of its admissions) keeps its
/// configured average visit.
/// Whatever the history — three days or four weeks — it is what the store has: nothing is divided by weeks it
/// does not have.
extension WaitModel {
    /// Exits must be at least this share of admissions for them to tell the visit length.
    public static let minimumExitShare = 0.8
    /// Admissions of history that weigh as much as the prior (the configured average visit): a new store
    /// trusts its own days after about an hour of a small store's traffic.
    public static let priorAdmissions = 60.0
    /// Called app tickets and bookings that weigh as much as the prior no-show share.
    public static let priorCalls = 20.0

    /// The model `traffic` shows, blended with `prior` where it shows little.
    public static func learn(_ traffic: StoreTraffic, prior: WaitModel, now: Timestamp) -> WaitModel {
        var model = prior
        model.computedAt = now
        let days = traffic.days.values
        model.days = days.count { day in day.admissions.contains { $0 > 0 } }
        let called = Double(days.reduce(0) { $0 + $1.called })
        let expired = Double(days.reduce(0) { $0 + $1.expired })
        model.noShow = (expired + priorCalls * prior.noShow) / (called + priorCalls)
        let late = days.reduce(0.0) { $0 + Double(min($1.cameAfterWindow, $1.expired)) }
        model.cameAfterWindow = min((late + priorCalls * prior.cameAfterWindow) / (called + priorCalls), model.noShow)
        model.neverCame = model.noShow - model.cameAfterWindow
        model.appNoShowByWait = noShowByWait(days, overall: model.noShow, never: model.neverCame)
        // Bookings: the calls and expiries that are not app tickets'.
        let appCalled = days.reduce(0) { $0 + $1.appCalledByWait.reduce(0, +) }
        let appExpired = days.reduce(0) { $0 + $1.appExpiredByWait.reduce(0, +) }
        let bookingsCalled = max(called - Double(appCalled), 0)
        let bookingsExpired = min(max(expired - Double(appExpired), 0), bookingsCalled)
        model.bookingNoShow = (bookingsExpired + priorCalls * prior.bookingNoShow) / (bookingsCalled + priorCalls)
        let today = now.milliseconds.floorDivided(by: 86_400_000)
        let calibration = RangeCalibration.learn(
            traffic.days.map { (Int(today - $0.key), $0.value.scored) }.filter { !$0.1.isEmpty }
        )
        model.calibration = calibration.groups.contains { $0 != nil } ? calibration : nil
        model.rangeShift = traffic.rangeShift
        model.appDelay = delayShares(days.map(\.appDelays), prior: prior.appDelay)
        model.paperDelay = delayShares(days.map(\.paperDelays), prior: prior.paperDelay)
        model.plannedAppDelay = delayShares(days.map(\.plannedAppDelays), prior: prior.plannedAppDelay)
        let timeline = Timeline(traffic, through: now)
        model.admissions = Int(timeline.admitted)
        guard timeline.admitted > 0, timeline.exited >= minimumExitShare * timeline.admitted else { return model }
        let little = VisitLength(meanMinutes: timeline.personMinutes / timeline.admitted, cv: prior.visit.cv)
        let fitted = VisitFit(timeline: timeline, start: little).best()
        // Blended with the prior by weight of evidence.
        let n = timeline.admitted
        let mean = (n * fitted.meanMinutes + priorAdmissions * prior.visit.meanMinutes) / (n + priorAdmissions)
        let cv = (n * fitted.cv + priorAdmissions * prior.visit.cv) / (n + priorAdmissions)
        model.visit = VisitLength(meanMinutes: mean, cv: cv, family: fitted.family)
        return model
    }

    /// Called app tickets that weigh as much as the prior share in one bin of waits.
    public static let priorCallsByWait = 10.0

    /// The no-show share of app tickets by their wait when called, each bin blended by weight of evidence with
    /// what a bin the store's log barely shows would most likely say: under ``plannedWait``, the store's overall
    /// share; from it on, `never` — the share that never came —, since a holder who waited that long had time to
    /// come, and what is left of its no-shows is those who never come at all. (The overall share, in a store whose
    /// holders live farther than its call window lasts, is mostly holders told a short wait: it rolled the first
    /// long line such a store ever had as if most of it would vanish.)
    static func noShowByWait(_ days: some Collection<StoreTraffic.Day>, overall: Double, never: Double) -> [Double] {
        let bins = noShowWaitEdges.count + 1
        var called = [Double](repeating: 0, count: bins)
        var expired = [Double](repeating: 0, count: bins)
        for day in days {
            for bin in 0..<min(bins, day.appCalledByWait.count, day.appExpiredByWait.count) {
                called[bin] += Double(day.appCalledByWait[bin])
                expired[bin] += Double(day.appExpiredByWait[bin])
            }
        }
        let planned = plannedWait.minutes
        return (0..<bins).map { bin in
            let prior = bin > 0 && noShowWaitEdges[bin - 1] >= planned ? never : overall
            return (expired[bin] + priorCallsByWait * prior) / (called[bin] + priorCallsByWait)
        }
    }

    /// Shares of delay bins from the days' histograms, blended with the prior's shares.
    static func delayShares(_ histograms: [[Int]], prior: [Double]) -> [Double] {
        var counts = prior.map { $0 * priorCalls }
        for histogram in histograms {
            if counts.count < histogram.count { counts += Array(repeating: 0, count: histogram.count - counts.count) }
            for (bin, count) in histogram.enumerated() { counts[bin] += Double(count) }
        }
        return normalised(counts)
    }
}

/// A store's admissions and exits per minute over its kept days, end to end (a visit may cross midnight), up to
/// the minute of `now`: the minutes to come have seen no exits yet, and must not look like visits that never end.
struct Timeline {
    var admissions: [Double] = []
    var exits: [Double] = []
    var admitted = 0.0
    var exited = 0.0
    var personMinutes = 0.0

    init(_ traffic: StoreTraffic, through now: Timestamp) {
        guard let first = traffic.days.keys.min(), let last = traffic.days.keys.max() else { return }
        for day in first...last {
            guard let counts = traffic.days[day] else {
                admissions += Array(repeating: 0, count: StoreTraffic.minutesPerDay)
                exits += Array(repeating: 0, count: StoreTraffic.minutesPerDay)
                continue
            }
            admissions += counts.admissions.map(Double.init)
            exits += counts.exits.map(Double.init)
        }
        let end = Int(now.milliseconds.floorDivided(by: 60_000) - first * Int64(StoreTraffic.minutesPerDay)) + 1
        if end < admissions.count {
            admissions.removeLast(admissions.count - max(end, 0))
            exits.removeLast(exits.count - max(end, 0))
        }
        var inside = 0.0
        for minute in admissions.indices {
            admitted += admissions[minute]
            exited += exits[minute]
            inside = max(inside + admissions[minute] - exits[minute], 0)
            personMinutes += inside
        }
    }

    /// The counts summed into bins of `width` minutes.
    func binned(_ width: Int) -> (admissions: [Double], exits: [Double]) {
        let count = (admissions.count + width - 1) / width
        var a = [Double](repeating: 0, count: count)
        var e = [Double](repeating: 0, count: count)
        for minute in admissions.indices {
            a[minute / width] += admissions[minute]
            e[minute / width] += exits[minute]
        }
        return (a, e)
    }
}
