import RealModule

/// Learning the calibrated range from a store's scored tickets.
extension RangeCalibration {
    /// From per-day histograms of errors by group (``StoreTraffic/Day/scored``), today `age` 0: the quantiles
    /// that leave (1 − ``coverage``) ÷ 2 of the weighed tickets on either side. A group needs ``minimumScored``
    /// weighed tickets of earlier days: today's count beside them, but alone they are how an unfinished day began
    /// (a store's first long line, scored an hour into its rush, says little of the rest of it), and the model's
    /// own spread stands.
    public static func learn(_ days: [(age: Int, scored: [[Int]])]) -> RangeCalibration {
        var weighed = [[Double]](repeating: [Double](repeating: 0, count: binCount), count: edges.count + 1)
        var earlier = [Double](repeating: 0, count: edges.count + 1)
        for (age, scored) in days where age < Self.days {
            let weight = Self.weight(age: age)
            for (group, histogram) in scored.enumerated() where group < weighed.count {
                for (bin, count) in histogram.enumerated() where bin < binCount {
                    weighed[group][bin] += weight * Double(count)
                    if age > 0 { earlier[group] += weight * Double(count) }
                }
            }
        }
        let tail = (1 - coverage) / 2
        return RangeCalibration(
            groups: zip(weighed, earlier).map { histogram, earlier in
                guard earlier >= minimumScored else { return nil }
                let total = histogram.reduce(0, +)
                return Bounds(low: quantile(histogram, tail * total), high: quantile(histogram, (1 - tail) * total))
            }
        )
    }

    /// How much a scored ticket `age` days old weighs.
    static func weight(age: Int) -> Double { Double.pow(0.5, Double(age) / halfLifeDays) }

    /// Whether `group` has enough weighed tickets of the days before `day` (its key) to be calibrated on them.
    static func isCalibrated(_ group: Int, before day: Int64, in days: [Int64: StoreTraffic.Day]) -> Bool {
        var earlier = 0.0
        for age in 1..<Self.days {
            guard let scored = days[day - Int64(age)]?.scored, group < scored.count else { continue }
            earlier += weight(age: age) * Double(scored[group].reduce(0, +))
            if earlier >= minimumScored { return true }
        }
        return false
    }

    /// The error below which `target` of a histogram's weight lies, read linearly inside its bin (in the bins'
    /// own scale, ``bin(point:waited:)``).
    static func quantile(_ histogram: [Double], _ target: Double) -> Double {
        var running = 0.0
        for (bin, weight) in histogram.enumerated() where weight > 0 {
            if running + weight >= target {
                let lowerEdge = Double(bin) * binWidth - reach - binWidth / 2
                return fineError * Double.sinh(lowerEdge + binWidth * (target - running) / weight)
            }
            running += weight
        }
        return fineError * Double.sinh(reach)
    }
}
