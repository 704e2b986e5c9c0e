import RealModule

/// Learning the calibrated range from a store's scored tickets.
extension RangeCalibration {
    /// From per-day histograms of errors by group (``StoreTraffic/Day/scored``), the newest day `ages` 0: the
    /// quantiles that leave (1 − ``coverage``) ÷ 2 of the weighed tickets on either side.
    public static func learn(_ days: [(age: Int, scored: [[Int]])]) -> RangeCalibration {
        var weighed = [[Double]](repeating: [Double](repeating: 0, count: binCount), count: edges.count + 1)
        for (age, scored) in days where age < Self.days {
            let weight = Double.pow(0.5, Double(age) / halfLifeDays)
            for (group, histogram) in scored.enumerated() where group < weighed.count {
                for (bin, count) in histogram.enumerated() where bin < binCount {
                    weighed[group][bin] += weight * Double(count)
                }
            }
        }
        let tail = (1 - coverage) / 2
        return RangeCalibration(
            groups: weighed.map { histogram in
                let total = histogram.reduce(0, +)
                guard total >= minimumScored else { return nil }
                return Bounds(low: quantile(histogram, tail * total), high: quantile(histogram, (1 - tail) * total))
            }
        )
    }

    /// The error below which `target` of a histogram's weight lies, read linearly inside its bin.
    static func quantile(_ histogram: [Double], _ target: Double) -> Double {
        var running = 0.0
        for (bin, weight) in histogram.enumerated() where weight > 0 {
            if running + weight >= target {
                let lowerEdge = Double(bin) * binWidth - errorReach - binWidth / 2
                return lowerEdge + binWidth * (target - running) / weight
            }
            running += weight
        }
        return errorReach
    }
}
