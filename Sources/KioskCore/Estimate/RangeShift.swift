import RealModule

/// The calibrated range (``RangeCalibration``) kept at its share while the days go unlike those it was calibrated on
/// (adaptive conformal inference by quantile tracking): every scored ticket told a calibrated range widens the range a
/// little when its wait fell outside it (by ``step`` × ``RangeCalibration/coverage``) and narrows it a little when it
/// held (by ``step`` × (1 − ``RangeCalibration/coverage``)). Where the range holds its share the width stays put on
/// average; where waits fall outside one time in three (a weekend whose line moves slower than any weekday the
/// calibration saw), it widens a little with every ticket until the range holds again, and narrows back when the days
/// settle. Both ends move together, in the log of (wait + 30 s) as ``RangeCalibration`` counts errors: which side the
/// errors fall on is the calibration's to say, and an end that cannot be missed (a range from zero; one whose waits all
/// ran long, its low end at the point) would otherwise be moved for ever. Each end's distance from the point is scaled
/// by e^width, in or out, and out it also gains (e^width − 1) × ``reach`` (an end at the point can move): moved in by
/// the same amount, the ends of a range narrower than the width crossed the point, and the range told was the point
/// alone (no range, so no ticket scored it and the shift could not widen it again: a drawn store's long waits, told
/// points for days, held 2 % of them); moved out by the same amount, a range calibrated to within 3 % (a store told
/// its long waits to the minute) became a range of hours after one busy day's misses (told 60 minutes, 10–355), and
/// held nine in ten for days after.
///
/// The ticket is judged by the range it was told (the shift already in it), so the shift answers for its own
/// effect: that is what keeps the long-run share at its target whatever the model and the calibration get wrong.
/// It fades by a quarter each day (``dailyKeep``): a day's errors join the calibration the next day, which holds
/// them from then on, and a shift kept whole besides went on widening for days what one busy day had widened — a
/// store told its long waits to within 3 % whose busy day ran 5 % slow was told ranges that held 99 % of its next
/// busy day (its shift, moved by hundreds of tickets told before the first of them was scored, overshot).
public struct RangeShift: Sendable, Hashable {
    /// How far both ends are moved out (negative: in), in the log of (wait + 30 s), by group of told wait
    /// (``RangeCalibration/group(of:)``): a store's short waits may be told well while its long ones run long.
    public var widths: [Double]
    /// The day (since 1970, UTC, as ``StoreTraffic`` counts them) of the last ticket tracked.
    public var day: Int64?

    /// The move of one ticket: a hundred tickets outside the range widen it by about ×2.2, a store of twenty
    /// tickets a day moves it within a week — and a half-hourly model (the server refreshes it every 30 minutes)
    /// does not overshoot, which a tenth of it per ticket did.
    static let step = 0.01
    /// How far the ends may move: out to 7.4 times their distance from the point (and 0.32 more), in to a seventh
    /// of it (a broken scorer must not make ranges of a day or of nothing).
    static let bounds = -2.0...2.0
    /// Out, an end gains (e^width − 1) × this in the log besides its scaled distance (0.09 at a width of 1).
    static let reach = 0.05
    /// The share of the widths a day keeps into the next.
    static let dailyKeep = 0.75

    public init(widths: [Double] = Array(repeating: 0, count: RangeCalibration.edges.count + 1), day: Int64? = nil) {
        self.day = day
        let groups = RangeCalibration.edges.count + 1
        // A list of other groups (another version's) is not read as these.
        let known = widths.count == groups ? widths : Array(repeating: 0, count: groups)
        self.widths = known.map { min(max($0.isFinite ? $0 : 0, Self.bounds.lowerBound), Self.bounds.upperBound) }
    }

    /// Takes a ticket told `told` (a calibrated range, ``WaitRange/isToldAsRange``) that waited `waited` until
    /// called on `day`.
    public mutating func track(told: WaitRange, waited: Duration, day: Int64) {
        if let last = self.day, day > last {
            let keep = Double.pow(Self.dailyKeep, Double(min(day - last, 60)))
            widths = widths.map { $0 * keep }
        }
        self.day = max(self.day ?? day, day)
        let outside = !told.holds(waited)
        let group = RangeCalibration.group(of: told.point)
        let moved = widths[group] + Self.step * ((outside ? 1 : 0) - (1 - RangeCalibration.coverage))
        widths[group] = min(max(moved, Self.bounds.lowerBound), Self.bounds.upperBound)
    }

    /// `range` with its ends moved; a range of no width (a call that is certain) stays one.
    func applied(to range: WaitRange) -> WaitRange {
        let group = RangeCalibration.group(of: range.point)
        guard range.low < range.high, widths[group] != 0 else { return range }
        let base = range.point.minutes + Self.half
        let ends = moved(
            low: Double.log((range.low.minutes + Self.half) / base),
            high: Double.log((range.high.minutes + Self.half) / base),
            group: group
        )
        return WaitRange(
            point: range.point,
            low: .minutes(max(base * Double.exp(ends.low) - Self.half, 0)),
            high: .minutes(max(base * Double.exp(ends.high) - Self.half, 0))
        )
    }

    /// Where the shift moves the ends of a range told in `group`, each given as the log of (end + 30 s) over
    /// (point + 30 s): its distance from the point scaled, and out a little more (see the type's note).
    func moved(low: Double, high: Double, group: Int) -> (low: Double, high: Double) {
        let width = widths[group]
        let scale = Double.exp(width)
        let gained = width > 0 ? (scale - 1) * Self.reach : 0
        return (low * scale - gained, high * scale + gained)
    }

    /// Half a minute: errors are counted in the log of (wait + 30 s).
    static let half = 0.5
}

extension RangeShift: Codable {
    private enum CodingKeys: String, CodingKey { case widths, day }

    /// Kept within ``bounds`` whatever a peer sent; one kept before it faded has no day (it fades from the next).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            widths: try c.decode([Double].self, forKey: .widths),
            day: try c.decodeIfPresent(Int64.self, forKey: .day)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(widths, forKey: .widths)
        try c.encodeIfPresent(day, forKey: .day)
    }
}
