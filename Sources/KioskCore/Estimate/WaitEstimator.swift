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
/// reach it (the median of that count), and the range is where that count's spread puts the call between its
/// 10th and 90th percentiles. Before opening everything starts at the opening.
public struct WaitEstimator: Sendable {
    public let model: WaitModel
    public let callWindow: Duration
    /// The grid's step, and how far ahead it is rolled (beyond, the line moves at the store's steady pace).
    public static let step: Duration = .seconds(30)
    static let horizonSteps = 720
    /// The range's quantiles: 10th and 90th percentile (z = 1.2816).
    static let rangeZ = 1.2816

    /// The visit's CDF on the grid, and each kind's holding time (delay to the door, then the visit) as
    /// probabilities per step.
    let visitCDF: [Double]
    let appHold: [Double]
    let paperHold: [Double]
    let appHoldCDF: [Double]
    let paperHoldCDF: [Double]

    public init(model: WaitModel, callWindow: Duration) {
        self.model = model
        self.callWindow = callWindow
        let steps = Self.horizonSteps
        visitCDF = model.visit.cdfGrid(step: Self.step, steps: steps)
        let visitPMF = Self.pmf(visitCDF)
        appHold = Self.convolve(Self.delayPMF(model.appDelay), visitPMF, limit: steps)
        paperHold = Self.convolve(Self.delayPMF(model.paperDelay), visitPMF, limit: steps)
        appHoldCDF = LineRoll.cdf(appHold)
        paperHoldCDF = LineRoll.cdf(paperHold)
    }

    /// The told wait of the ticket at `position` in the line at `now` (0 = first), or of one taken now at the end
    /// of the line (`position` = the line's length).
    public func wait(position: Int, in state: QueueState, at now: Timestamp) -> WaitRange {
        schedule(through: position, in: state, at: now).last ?? .zero
    }

    /// The told wait of every place of the line through `position`, first in line first.
    public func schedule(through position: Int, in state: QueueState, at now: Timestamp) -> [WaitRange] {
        var roll = LineRoll(estimator: self, state: state, now: now)
        return roll.run(through: position)
    }

    // MARK: - Distributions on the grid

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
