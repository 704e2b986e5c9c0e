import RealModule

/// ``WaitModel/calibratedRange(about:)`` as a roll asks it, for every step it calls a place in: each group's
/// calibrated ends, moved by the model's ``RangeShift``, as factors of (point + 30 s), made once per estimator
/// (asked anew, the logs, exponentials and conversions of each ask were a sixth of a long line's roll). The same
/// ranges within a few milliseconds (the model's rounds its calibrated ends to the millisecond first).
struct CalibratedRanges: Sendable {
    private struct Factors {
        /// The calibrated low end's factor, before the shift: an end that falls below zero is clamped there and
        /// moved from there, which ``WaitModel/calibratedRange(about:)`` works out.
        var calibratedLow: Double
        var low: Double
        var high: Double
    }

    private let model: WaitModel
    private let groups: [Factors?]

    init(_ model: WaitModel) {
        self.model = model
        let shift = model.rangeShift
        let calibrated: [RangeCalibration.Bounds?] = model.calibration?.groups ?? []
        groups = calibrated.enumerated().map { group, bounds in
            bounds.map { bounds in
                // A told range holds its point (``WaitRange``): ends on one side of it (a group whose waits all
                // ran long) are moved from the point; a range of no width is told as it is
                // (``RangeShift/applied(to:)``).
                let low = min(bounds.low, 0)
                let high = max(bounds.high, 0)
                let moved = low < high ? shift.moved(low: low, high: high, group: group) : (low: low, high: high)
                return Factors(calibratedLow: Double.exp(low), low: Double.exp(moved.low), high: Double.exp(moved.high))
            }
        }
    }

    /// The calibrated range about `point`; nil where its group has none.
    func range(about point: Duration) -> WaitRange? {
        let minutes = point.minutes
        let group = RangeCalibration.group(ofMinutes: minutes)
        guard group < groups.count, let factors = groups[group] else { return nil }
        let base = minutes + RangeShift.half
        guard base * factors.calibratedLow >= RangeShift.half else { return model.calibratedRange(about: point) }
        return WaitRange(
            point: point,
            low: .minutes(max(base * factors.low - RangeShift.half, 0)),
            high: .minutes(max(base * factors.high - RangeShift.half, 0))
        )
    }
}
