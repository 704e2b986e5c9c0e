import Synchronization

/// The wait estimate (RASD G3, R11–R13, R20): for each place in the line, the time until it is called, as a point
/// and a range — one estimator for the printed ticket, the kiosk's status and display, and clup-server's JSON
/// and pages.
///
/// It rolls the line forward from what the log holds, in expected values on a grid of ``step``: places free up
/// as the people inside leave (each of today's admissions, by how long ago it was, still inside with the chance
/// its visit has not ended, so a store that just filled frees no place for a while and one full for an hour
/// frees them fast), and as called tickets that never come expire after the call window; each freed place goes
/// to the next in line, or first to a booking whose slot has come, who then hold it for their own delay and
/// visit (a booking for the length it said, R20). A place in line is called when the places expected to free
/// reach it (the median of that count), and the range is where that count's spread (``rangeZ`` of its standard
/// deviations, with the pace's own error, ``paceError``) puts the call — where the store's own scored tickets do
/// not calibrate it (``CalibratedRanges``). Before opening everything starts at the opening.
public struct WaitEstimator: Sendable {
    public let model: WaitModel
    public let callWindow: Duration
    /// The grid's step, and how far ahead it is rolled (beyond, the line moves at the store's steady pace).
    public static let step: Duration = .seconds(30)
    static let horizonSteps = 720
    /// The range: the count of freed places this many standard deviations either side (calibrated by clup-sim on
    /// the scenarios of Benchmarks/scenarios to hold the actual wait about four times in five: the count's spread
    /// leaves out how the pace itself may differ from the model's). A place free now has no range: its call is
    /// certain, and a range about it would count as held whatever happened.
    static let rangeZ = 1.45
    /// How far off the model's own pace may be, as a share of the wait: added to the count's spread (in
    /// quadrature) where the store's scored tickets do not say yet — a new store's first busy day, a quiet store's
    /// first rush. The count's spread alone grows with the root of the places ahead, and held 42 % of a drawn new
    /// store's first busy day (waits of 60–90 minutes told within ±4 %, 4 % short); with 3 % of the wait the
    /// store's range holds 76 %, and the named scenarios' (80 ± 7 %) stay within.
    static let paceError = 0.03

    /// How far either side of its point a range told by the model alone reaches: ``rangeZ`` times the count's
    /// spread (turned into time at the pace places free) and the pace's own error on `wait`, in quadrature (both
    /// in one unit: steps, or minutes).
    static func margin(count: Double, wait: Double) -> Double {
        let pace = paceError * wait
        return rangeZ * (count * count + pace * pace).squareRoot()
    }

    /// A holding time on the grid: probabilities per step, and their running sum.
    typealias Hold = (pmf: [Double], cdf: [Double])

    /// The visit's CDF on the grid, and each kind's holding time (delay to the door, then the visit); an app
    /// ticket called after ``WaitModel/plannedWait`` in line has its own delay.
    let visitCDF: [Double]
    /// The visit's chance of ending in each step of the grid (``visitCDF``'s differences, untrimmed).
    let visitEnds: [Double]
    let appHold: Hold
    let paperHold: Hold
    let plannedAppHold: Hold
    /// Bookings' holding times by the visit they said, made when first asked (shared by the estimator's copies).
    let bookingHolds = BookingHolds()
    /// Steps after which a visit has almost surely ended (the grid's CDF within 10⁻⁶ of 1).
    let visitReach: Int
    /// The call window in steps, and the chance that a holder called from a step on has lost its place by each
    /// step after (0 until the window ends, then 1): a long line's roll gives one to every app holder it calls.
    let windowSteps: Int
    let windowCDF: [Double]
    /// The model's calibrated ranges, ready for each step of a roll.
    let calibrated: CalibratedRanges

    public init(model: WaitModel, callWindow: Duration) {
        self.model = model
        self.callWindow = callWindow
        let steps = Self.horizonSteps
        visitCDF = model.visit.cdfGrid(step: Self.step, steps: steps)
        visitReach = (visitCDF.firstIndex { $0 > 1 - 1e-6 } ?? steps) + 1
        visitEnds = Self.pmf(visitCDF)
        windowSteps = Self.steps(callWindow)
        windowCDF = Self.stepCDF(at: windowSteps)
        calibrated = CalibratedRanges(model)
        let visitPMF = Self.trimmed(visitEnds)
        appHold = Self.hold(delay: model.appDelay, visit: visitPMF)
        paperHold = Self.hold(delay: model.paperDelay, visit: visitPMF)
        plannedAppHold = Self.hold(delay: model.plannedAppDelay, visit: visitPMF)
    }

    /// The told wait of the ticket at `position` in the line at `now` (0 = first), or of one taken now at the end
    /// of the line (`position` = the line's length).
    public func wait(position: Int, in state: QueueState, at now: Timestamp) -> WaitRange {
        var roll = LineRoll(estimator: self, state: state, now: now)
        return roll.run(through: position, everyRange: false).last ?? .zero
    }

    /// The told wait of every place of the line through `position`, first in line first.
    public func schedule(through position: Int, in state: QueueState, at now: Timestamp) -> [WaitRange] {
        var roll = LineRoll(estimator: self, state: state, now: now)
        return roll.run(through: position)
    }

    /// A roll of `state`'s line from `now` that can be asked again, for any place, and go on as tickets join the
    /// line's end: what a server keeps between requests (a long line is rolled once, not once a request).
    public func roll(_ state: QueueState, at now: Timestamp) -> Roll {
        Roll(line: LineRoll(estimator: self, state: state, now: now))
    }

    public struct Roll: Sendable {
        var line: LineRoll

        /// The told wait of the place `position` (every place's range is computed on the way).
        public mutating func wait(position: Int) -> WaitRange {
            line.wait(at: position)
        }

        /// Goes on over `newer`, whose only change is `joined` tickets at its line's end; false when it cannot
        /// (roll anew).
        public mutating func extend(to newer: QueueState, joined: [TicketID]) -> Bool {
            line.extend(to: newer, joined: joined)
        }

        /// Goes on over `newer` at `now`, in the grid step the roll started in, whatever changed in its line
        /// (tickets gone from it, places freed or taken, tickets joined at its end; ``LineRoll/realign(to:at:)``);
        /// false when it cannot (roll anew).
        public mutating func realign(to newer: QueueState, at now: Timestamp) -> Bool {
            line.realign(to: newer, at: now)
        }
    }

    /// A booking's holding time when it said its visit: its delay to the door, then a visit of that mean and
    /// the store's variation.
    func bookingHold(minutes: Int) -> Hold {
        bookingHolds.hold(minutes: minutes) {
            let visit = VisitLength(meanMinutes: Double(minutes), cv: model.visit.cv, family: model.visit.family)
            let visitPMF = Self.trimmed(Self.pmf(visit.cdfGrid(step: Self.step, steps: Self.horizonSteps)))
            return Self.hold(delay: model.appDelay, visit: visitPMF)
        }
    }

    // MARK: - Distributions on the grid

    /// The holding time of a delay to the door (``WaitModel/delayBinSeconds`` bins), then a visit.
    static func hold(delay: [Double], visit: [Double]) -> Hold {
        let pmf = trimmed(convolve(delayPMF(delay), visit, limit: horizonSteps))
        return (pmf, cdf(pmf))
    }

    /// A distribution without its negligible tail (the roll adds each holder's pmf: fewer steps, faster).
    static func trimmed(_ pmf: [Double]) -> [Double] {
        var end = pmf.count
        while end > 1, pmf[end - 1] < 1e-9 { end -= 1 }
        return Array(pmf[..<end])
    }

    /// Whole grid steps in `duration` (none for a negative one).
    static func steps(_ duration: Duration) -> Int {
        max(Int(duration.components.seconds / step.components.seconds), 0)
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

    static func pmf(_ cdf: [Double]) -> [Double] {
        (0..<(cdf.count - 1)).map { cdf[$0 + 1] - cdf[$0] }
    }

    /// A delay's shares of ``WaitModel/delayBinSeconds`` bins, as probabilities per grid step.
    static func delayPMF(_ shares: [Double]) -> [Double] {
        let perBin = WaitModel.delayBinSeconds / Int(step.components.seconds)
        guard perBin > 1 else { return shares }
        return shares.flatMap { share in Array(repeating: share / Double(perBin), count: perBin) }
    }

    static func convolve(_ a: [Double], _ b: [Double], limit: Int) -> [Double] {
        var out = [Double](repeating: 0, count: min(a.count + b.count - 1, limit))
        for (i, x) in a.enumerated() where x > 0 {
            for (j, y) in b.enumerated() where i + j < out.count { out[i + j] += x * y }
        }
        return out
    }
}

extension Duration {
    /// Rounded up to whole minutes, as a wait is printed and shown: "about 6 min".
    public var minutesRoundedUp: Int { Int((wholeMilliseconds + 59_999) / 60_000) }
}

/// The holding-time distributions of bookings by the visit they said, made once for an estimator.
final class BookingHolds: Sendable {
    private let made = Mutex<[Int: (pmf: [Double], cdf: [Double])]>([:])

    func hold(minutes: Int, make: () -> (pmf: [Double], cdf: [Double])) -> (pmf: [Double], cdf: [Double]) {
        if let known = made.withLock({ $0[minutes] }) { return known }
        let new = make()
        made.withLock { $0[minutes] = new }
        return new
    }
}

/// A told wait: the point (the median), and a range it falls in four times out of five. On the wire (a
/// `ticketIssued` event's `told`): `{"seconds": 600, "low": 420, "high": 900}`.
public struct WaitRange: Sendable, Hashable {
    public var point: Duration
    public var low: Duration
    public var high: Duration

    /// Parts beyond a day are told as a day: a line that long is not waited in.
    public init(point: Duration, low: Duration, high: Duration) {
        let day = Duration.seconds(Self.seconds.upperBound)
        self.point = min(max(point, .zero), day)
        self.low = min(max(low, .zero), self.point)
        self.high = min(max(high, self.point), day)
    }

    public static let zero = WaitRange(point: .zero, low: .zero, high: .zero)

    /// How a told wait is shown, on paper and on the pages alike: whole minutes rounded up, and the range's ends
    /// in whole minutes when there is a range, its ends differ and the wait is not zero ("12 min (8–15)").
    public static func shownMinutes(
        point: Duration,
        low: Duration?,
        high: Duration?
    ) -> (
        minutes: Int, range: ClosedRange<Int>?
    ) {
        let minutes = point.minutesRoundedUp
        guard let low, let high, minutes > 0, low.minutesRoundedUp < high.minutesRoundedUp else {
            return (minutes, nil)
        }
        return (minutes, low.minutesRoundedUp...high.minutesRoundedUp)
    }

    /// Whether a range is told with it (``shownMinutes(point:low:high:)``): its share held is what the pages
    /// state ("8 times in 10"), so it is measured over these alone — a wait told 0 with a range of seconds about
    /// it, in a store with no line, holds nearly every time and is no range anyone was shown.
    public var isToldAsRange: Bool { Self.shownMinutes(point: point, low: low, high: high).range != nil }

    /// Whether `waited` fell inside the range, to the second a wait is told in.
    public func holds(_ waited: Duration) -> Bool {
        low - .seconds(1) < waited && waited < high + .seconds(1)
    }

    /// The range moved later by `delay` (a wait told before opening counts from the opening).
    func after(_ delay: Duration) -> WaitRange {
        WaitRange(point: point + delay, low: low + delay, high: high + delay)
    }
}

extension WaitRange: Codable {
    enum CodingKeys: String, CodingKey {
        case seconds, low, high
    }

    /// Seconds a told wait may be: up to a day.
    static let seconds = 0...86_400

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func read(_ key: CodingKeys) throws -> Duration {
            let value = try c.decode(Int.self, forKey: key)
            guard Self.seconds.contains(value) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "0 to 86400 seconds")
            }
            return .seconds(value)
        }
        let point = try read(.seconds)
        let low = try read(.low)
        let high = try read(.high)
        guard low <= point, point <= high else {
            throw DecodingError.dataCorruptedError(forKey: .low, in: c, debugDescription: "low ≤ seconds ≤ high")
        }
        self.init(point: point, low: low, high: high)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Int(point.components.seconds), forKey: .seconds)
        try c.encode(Int(low.components.seconds), forKey: .low)
        try c.encode(Int(high.components.seconds), forKey: .high)
    }
}
