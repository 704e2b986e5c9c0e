/// The told range of a place in the roll, and the line past the roll's horizon.
extension LineRoll {
    /// The wait of a place called at `step`: its spread is the count's, turned into time at the pace places free
    /// then.
    mutating func range(at step: Int) -> WaitRange {
        let point = Self.step * step
        // The store's own scored tickets, where they say (``WaitModel/calibratedRange(about:)``), else the
        // count's spread.
        // (The same for every place called in the step: a big store calls several.)
        if let kept = calibratedInStep, kept.step == step { return kept.range }
        if let calibrated = estimator.calibrated.range(about: point + untilStart) {
            calibratedInStep = (step, calibrated)
            return calibrated
        }
        let spread = countSpread(by: step).squareRoot()
        let pace = freedAround(step)
        guard pace > 1e-6 else { return WaitRange(point: point, low: point, high: point).after(untilStart) }
        // Steps per place near the call, times the count's spread, and the pace's own error; at least half a
        // step either side.
        let margin = max(WaitEstimator.margin(count: spread / pace, wait: Double(step)), 0.5)
        return WaitRange(
            point: point,
            low: max(Self.step * (Double(step) - margin), .zero),
            high: Self.step * (Double(step) + margin)
        ).after(untilStart)
    }

    /// The variance of the number of places freed by `step` (each holder frees its place or not). Asked for
    /// steps that never go back (the roll's): a holder whose chances have all played out adds the same from
    /// then on, and is moved into ``settledSpread`` (a long line's roll holds more of them with every place).
    mutating func countSpread(by step: Int) -> Double {
        if step >= nextSettling {
            holders.removeAll { holder in
                guard holder.isSettled(by: step) else { return false }
                let p = min(holder.freed(by: step), 1)
                settledSpread += p * (1 - p)
                return true
            }
            nextSettling = step + 20
        }
        var variance = settledSpread
        for holder in holders {
            let p = min(holder.freed(by: step), 1)
            variance += p * (1 - p)
        }
        let cdf = estimator.visitCDF
        let last = cdf.count - 1
        for (elapsed, count) in insiders.enumerated() where count > 0 {
            let p = min(insiderScale * (cdf[min(elapsed + step, last)] - cdf[elapsed]), 1)
            variance += count * p * (1 - p)
        }
        return variance
    }

    /// Places freed per step around `step` (over ten minutes).
    mutating func freedAround(_ step: Int) -> Double {
        schedulePending()
        let window = steps(.seconds(300))
        let from = max(step - window, 0)
        let to = min(step + window, freeing.count - 1)
        var total = 0.0
        // Read, not summed: looking ahead does not move the step a place taken now frees its first share in.
        for k in from...to { total += freeing[k] + insidersLeaving(in: k) }
        return total / Double(to - from + 1)
    }

    /// Past the grid's horizon: the rest of the line at the steady pace (capacity ÷ a place's holding time).
    func extrapolated(
        from index: Int,
        through position: Int,
        cumulative: Double,
        demand: Double,
        called: Int
    )
        -> [WaitRange]
    {
        let hold = max(estimator.model.visit.meanMinutes, 1)
        let pace = Double(max(state.capacity, 1)) / hold  // places a minute
        let horizon = Self.step * WaitEstimator.horizonSteps
        return (index...position).map { n in
            let behind = max(Double(n - called + 1) + demand - 0.5 - cumulative, 0)
            let point = horizon + .minutes(behind / pace)
            if let calibrated = estimator.calibrated.range(about: point + untilStart) { return calibrated }
            let count = (behind.squareRoot() + 1) / pace
            let margin = Duration.minutes(WaitEstimator.margin(count: count, wait: point.minutes))
            return WaitRange(point: point, low: point - margin, high: point + margin).after(untilStart)
        }
    }
}
