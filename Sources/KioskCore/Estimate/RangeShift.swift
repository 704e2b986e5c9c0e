import RealModule

/// The calibrated range (``RangeCalibration``) kept at its share while the days go unlike those it was calibrated on
/// (adaptive conformal inference by quantile tracking): every scored ticket told a calibrated range widens the range a
/// little when its wait fell outside it (by ``step`` × ``RangeCalibration/coverage``) and narrows it a little when it
/// held (by ``step`` × (1 − ``RangeCalibration/coverage``)). Where the range holds its share the width stays put on
/// average; where waits fall outside one time in three (a weekend whose line moves slower than any weekday the
/// calibration saw), it widens a little with every ticket until the range holds again, and narrows back when the days
/// settle. Both ends move together, in the log of (wait + 30 s) as ``RangeCalibration`` counts errors: which side the
/// errors fall on is the calibration's to say, and an end that cannot be missed (a range from zero; one whose waits all
/// ran long, its low end at the point) would otherwise be moved for ever. Out, both ends move by the width; in, each
/// end's distance from the point shrinks by the factor e^width — moved in by the same amount, the ends of a range
/// narrower than the width crossed the point, and the range told was the point alone: no range, so no ticket scored
/// it and the shift could not widen it again (a drawn store's long waits, told points for days, held 2 % of them).
///
/// The ticket is judged by the range it was told (the shift already in it), so the shift answers for its own
/// effect: that is what keeps the long-run share at its target whatever the model and the calibration get wrong.
public struct RangeShift: Sendable, Hashable {
    /// How far both ends are moved out (negative: in), in the log of (wait + 30 s), by group of told wait
    /// (``RangeCalibration/group(of:)``): a store's short waits may be told well while its long ones run long.
    public var widths: [Double]

    /// The move of one ticket: a hundred tickets outside the range widen it by about ×2.2, a store of twenty
    /// tickets a day moves it within a week — and a half-hourly model (the server refreshes it every 30 minutes)
    /// does not overshoot, which a tenth of it per ticket did.
    static let step = 0.01
    /// How far the ends may move: out up to ×7.4, in to a seventh of their distance from the point (a broken
    /// scorer must not make ranges of a day or of nothing).
    static let bounds = -2.0...2.0

    public init(widths: [Double] = Array(repeating: 0, count: RangeCalibration.edges.count + 1)) {
        let groups = RangeCalibration.edges.count + 1
        // A list of other groups (another version's) is not read as these.
        let known = widths.count == groups ? widths : Array(repeating: 0, count: groups)
        self.widths = known.map { min(max($0.isFinite ? $0 : 0, Self.bounds.lowerBound), Self.bounds.upperBound) }
    }

    /// Takes a ticket told `told` (a calibrated range, ``WaitRange/isToldAsRange``) that waited `waited` until
    /// called.
    public mutating func track(told: WaitRange, waited: Duration) {
        let outside = !told.holds(waited)
        let group = RangeCalibration.group(of: told.point)
        let moved = widths[group] + Self.step * ((outside ? 1 : 0) - (1 - RangeCalibration.coverage))
        widths[group] = min(max(moved, Self.bounds.lowerBound), Self.bounds.upperBound)
    }

    /// `range` with its ends moved; a range of no width (a call that is certain) stays one.
    func applied(to range: WaitRange) -> WaitRange {
        let width = widths[RangeCalibration.group(of: range.point)]
        guard range.low < range.high, width != 0 else { return range }
        let half = 0.5
        let point = range.point.minutes + half
        /// An end at `minutes`, `outwards` (+1 high, −1 low), in log(minutes + 30 s).
        func moved(_ minutes: Double, outwards: Double) -> Duration {
            let end = minutes + half
            let log: Double
            if width > 0 {
                log = Double.log(end) + outwards * width
            } else {
                // Its distance from the point shrunk: never past it.
                log = Double.log(point) + Double.log(end / point) * Double.exp(width)
            }
            return .minutes(max(Double.exp(log) - half, 0))
        }
        return WaitRange(
            point: range.point,
            low: moved(range.low.minutes, outwards: -1),
            high: moved(range.high.minutes, outwards: 1)
        )
    }
}

extension RangeShift: Codable {
    private enum CodingKeys: String, CodingKey { case widths }

    /// Kept within ``bounds`` whatever a peer sent.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(widths: try c.decode([Double].self, forKey: .widths))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(widths, forKey: .widths)
    }
}
