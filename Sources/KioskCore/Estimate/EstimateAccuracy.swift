/// How right the told waits were (issue 31's figures): for tickets that were told a wait when they joined the
/// line and were then called, the error of the told point against the actual wait, and how often the told range
/// held it.
public struct EstimateAccuracy: Sendable, Equatable, Codable {
    /// Tickets scored: told a wait, and called.
    public var scored: Int
    public var medianAbsErrorSeconds: Int
    public var p90AbsErrorSeconds: Int
    /// Share told within ±3 minutes of the actual wait.
    public var within3Minutes: Double
    /// Of the tickets told a range (``WaitRange/isToldAsRange``), how many, and the share whose range held the
    /// actual wait (nil when none was: a store with no line tells waits of 0, and a range about them would hold
    /// every time — a figure the target cannot be read against).
    public var ranged: Int
    public var rangeCoverage: Double?
    /// The share the range is meant to hold (``RangeCalibration/coverage``).
    public var targetCoverage: Double = RangeCalibration.coverage
    /// The hour of the day (the store's, 0–23, when the tickets joined) whose tickets were told worst (the
    /// median error), of the hours that scored at least ``worstHourMinimum``; nil when none did.
    public var worstHour: Int?
    public var worstHourMedianAbsErrorSeconds: Int?

    /// Tickets an hour must score to be named the worst.
    public static let worstHourMinimum = 5

    /// The figures of `pairs`, each with the local hour its ticket joined the line.
    public init?(_ pairs: [(told: WaitRange, waited: Duration, hour: Int)]) {
        self.init(pairs.map { ($0.told, $0.waited) })
        var byHour: [Int: [Int64]] = [:]
        for pair in pairs {
            byHour[pair.hour, default: []].append(abs((pair.told.point - pair.waited).components.seconds))
        }
        let medians = byHour.filter { $0.value.count >= Self.worstHourMinimum }.mapValues { $0.sorted()[$0.count / 2] }
        if let worst = medians.max(by: { ($0.value, -$0.key) < ($1.value, -$1.key) }) {
            worstHour = worst.key
            worstHourMedianAbsErrorSeconds = Int(worst.value)
        }
    }

    /// The figures of `pairs`; nil without any.
    public init?(_ pairs: [(told: WaitRange, waited: Duration)]) {
        guard !pairs.isEmpty else { return nil }
        let errors = pairs.map { abs(($0.told.point - $0.waited).components.seconds) }.sorted()
        scored = pairs.count
        medianAbsErrorSeconds = Int(errors[errors.count / 2])
        p90AbsErrorSeconds = Int(errors[min(errors.count * 9 / 10, errors.count - 1)])
        within3Minutes = Double(errors.count { $0 <= 180 }) / Double(errors.count)
        let ranged = pairs.filter(\.told.isToldAsRange)
        self.ranged = ranged.count
        rangeCoverage = ranged.isEmpty ? nil : Double(ranged.count { $0.told.holds($0.waited) }) / Double(ranged.count)
    }
}
