import RealModule

/// The told range calibrated on the store's own errors (split conformal prediction): of the tickets the store
/// scored lately (what each was told against when it was called, ``ToldWaits``), grouped by the wait they were
/// told, the range is where the middle ``coverage`` of their actual waits fell relative to what they were told.
/// Whatever the model gets wrong about a store — a visit it never saw, holders who come late — the range then
/// holds its stated share there, and follows the store as it changes (recent days weigh more). Where a group has
/// too few tickets yet, the model's own range stands (a new store: the offline spread).
///
/// An error is the log of (actual + 30 s) ÷ (told + 30 s): a wait told 2 minutes that took 4 is as far off as
/// one told 20 that took 40, and the half minute keeps waits near zero finite.
public struct RangeCalibration: Sendable, Hashable, Codable {
    /// The share of actual waits the told range is meant to hold.
    public static let coverage = 0.8
    /// Told waits (minutes) that divide the groups: < 3, 3–6, … 90 and more.
    public static let edges: [Double] = [3, 6, 10, 15, 20, 30, 45, 60, 90]
    /// Errors are counted in bins of ``binWidth`` of asinh(error ÷ ``fineError``), from −``reach`` to +``reach``:
    /// a hundredth wide near zero, where a store told to the minute has its quantiles within a few hundredths of
    /// zero (bins a tenth wide there, read as if even inside, made its range twice too wide: 88 % held), a
    /// twentieth at ±0.5, a tenth at ±1, up to ±3 (twenty times the told wait, or a twentieth) in 83 bins.
    static let fineError = 0.1
    static let binWidth = 0.1
    static let reach = 4.1
    static var binCount: Int { Int((2 * reach / binWidth).rounded()) + 1 }
    /// Scored tickets a group needs (weighed by their age) before its range replaces the model's.
    public static let minimumScored = 30.0
    /// Days of scored tickets it learns from, and the days over which a day's weight halves.
    public static let days = 14
    static let halfLifeDays = 4.0

    public struct Bounds: Sendable, Hashable, Codable {
        /// The error quantiles, low and high (see the type's note).
        public var low: Double
        public var high: Double
    }

    /// One per group of told waits; nil where it has too few tickets.
    public var groups: [Bounds?]

    public init(groups: [Bounds?] = Array(repeating: nil, count: Self.edges.count + 1)) {
        self.groups = groups
    }

    /// The group of a told wait.
    public static func group(of point: Duration) -> Int {
        group(ofMinutes: point.minutes)
    }

    static func group(ofMinutes minutes: Double) -> Int {
        edges.firstIndex { minutes < $0 } ?? edges.count
    }

    /// The error bin of a ticket told `point` that waited `waited`.
    static func bin(point: Duration, waited: Duration) -> Int {
        let error = Double.log((waited.minutes + 0.5) / (point.minutes + 0.5))
        let t = Double.asinh(error / fineError)
        let index = Int(((min(max(t, -reach), reach) + reach) / binWidth).rounded())
        return min(max(index, 0), binCount - 1)
    }

    /// The calibrated range about a told `point`, if its group has one.
    public func range(about point: Duration) -> (low: Duration, high: Duration)? {
        let group = Self.group(of: point)
        guard group < groups.count, let bounds = groups[group] else { return nil }
        let base = point.minutes + 0.5
        return (.minutes(max(base * Double.exp(bounds.low) - 0.5, 0)), .minutes(base * Double.exp(bounds.high) - 0.5))
    }
}
