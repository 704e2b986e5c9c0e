import RealModule

/// The told range kept at its share while a day goes unlike the days it was calibrated on (adaptive conformal
/// inference by quantile tracking): every scored ticket told a range moves each end a little — out by
/// ``step`` × (1 − tail) when the wait fell beyond that end, in by ``step`` × tail when it did not, where tail
/// is the share meant to fall beyond it (a tenth). Where the range holds its share the ends stay put on average;
/// where waits fall beyond the high end one time in three (a weekend whose line moves slower than any weekday
/// the calibration saw), the high end moves out a little with every ticket until it holds again, and back in
/// when the day settles. Each end on its own, in the log of (wait + 30 s), as ``RangeCalibration`` counts errors.
///
/// The told ticket is judged by the range it was told (this shift already in it), so the shift answers for its
/// own effect: that is what keeps the long-run share at its target whatever the model and the calibration get
/// wrong.
public struct RangeShift: Sendable, Hashable, Codable {
    /// How far the low end is moved down and the high end up (negative: towards the point).
    public var low = 0.0
    public var high = 0.0

    /// The move of one ticket, in the log of (wait + 30 s): a hundred tickets missed one side move that end by
    /// about 0.9 (×2.5) at most, a store of twenty tickets a day moves it within a week — and a half-hourly model
    /// (the server refreshes it every 30 minutes) does not overshoot, which a tenth of it per ticket did.
    static let step = 0.01
    /// How far either end may move (a broken scorer must not make ranges of a day or of nothing).
    static let bounds = -1.0...2.0
    /// The share of waits meant to fall beyond each end.
    static var tail: Double { (1 - RangeCalibration.coverage) / 2 }

    public init(low: Double = 0, high: Double = 0) {
        self.low = min(max(low, Self.bounds.lowerBound), Self.bounds.upperBound)
        self.high = min(max(high, Self.bounds.lowerBound), Self.bounds.upperBound)
    }

    /// Takes a ticket told `told` (a range, ``WaitRange/isToldAsRange``) that waited `waited` until called.
    public mutating func track(told: WaitRange, waited: Duration) {
        let below = waited < told.low - .seconds(1)
        let above = waited > told.high + .seconds(1)
        self = RangeShift(
            low: low + Self.step * ((below ? 1 : 0) - Self.tail),
            high: high + Self.step * ((above ? 1 : 0) - Self.tail)
        )
    }

    /// `range` with its ends moved; a range of no width (a call that is certain) stays one.
    func applied(to range: WaitRange) -> WaitRange {
        guard range.low < range.high, low != 0 || high != 0 else { return range }
        let half = 0.5
        return WaitRange(
            point: range.point,
            low: .minutes(max((range.low.minutes + half) * Double.exp(-low) - half, 0)),
            high: .minutes((range.high.minutes + half) * Double.exp(high) - half)
        )
    }
}

extension RangeShift {
    private enum CodingKeys: String, CodingKey { case low, high }

    /// Kept within ``bounds`` whatever a peer sent.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(low: try c.decode(Double.self, forKey: .low), high: try c.decode(Double.self, forKey: .high))
    }
}
