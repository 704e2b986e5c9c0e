import RealModule

/// The simulation's randomness: SplitMix64, seeded by the scenario, so a run is repeatable to the ticket.
struct SimRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// Seeded by `seed` run through SplitMix64's own mixing: seeds 1, 2, 3… start far apart. (Seeded as is,
    /// seed `n + γ` is seed `n`'s stream one draw on, γ the constant `next()` adds: numbered seeds must not be
    /// spaced by it, or stores drawn from neighbouring numbers share their parameters.)
    init(mixing seed: UInt64) {
        var mixer = SimRandom(seed: seed)
        state = mixer.next()
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in (0, 1).
    mutating func unit() -> Double { (Double(next() >> 11) + 0.5) / Double(1 << 53) }

    mutating func chance(_ p: Double) -> Bool { unit() < p }

    mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + unit() * (range.upperBound - range.lowerBound)
    }

    mutating func normal() -> Double {
        (-2 * Double.log(unit())).squareRoot() * Double.cos(2 * Double.pi * unit())
    }

    mutating func exponential(mean: Double) -> Double { -mean * Double.log(unit()) }

    mutating func logNormal(mean: Double, sd: Double) -> Double {
        let sigma2 = Double.log(1 + (sd * sd) / (mean * mean))
        return Double.exp(Double.log(mean) - sigma2 / 2 + sigma2.squareRoot() * normal())
    }

    /// Gamma with this mean and standard deviation (Marsaglia and Tsang).
    mutating func gamma(mean: Double, sd: Double) -> Double {
        let shape = (mean * mean) / (sd * sd)
        let scale = (sd * sd) / mean
        if shape < 1 { return gamma(shape: shape + 1) * Double.pow(unit(), 1 / shape) * scale }
        return gamma(shape: shape) * scale
    }

    private mutating func gamma(shape: Double) -> Double {
        let d = shape - 1.0 / 3
        let c = 1 / (9 * d).squareRoot()
        while true {
            var x: Double
            var v: Double
            repeat {
                x = normal()
                v = 1 + c * x
            } while v <= 0
            v = v * v * v
            let u = unit()
            if Double.log(u) < 0.5 * x * x + d - d * v + d * Double.log(v) { return d * v }
        }
    }

    /// How many events of a Poisson process with this mean.
    mutating func poisson(_ mean: Double) -> Int {
        guard mean < 30 else { return max(0, Int((mean + mean.squareRoot() * normal()).rounded())) }
        let limit = Double.exp(-mean)
        var product = unit()
        var count = 0
        while product > limit {
            count += 1
            product *= unit()
        }
        return count
    }
}

extension Scenario {
    /// A visit's true length, minutes.
    func visitMinutes(_ random: inout SimRandom) -> Double {
        switch distribution {
        case .lognormal: random.logNormal(mean: meanVisitMinutes, sd: sdVisitMinutes)
        case .exponential: random.exponential(mean: meanVisitMinutes)
        case .gamma: random.gamma(mean: meanVisitMinutes, sd: sdVisitMinutes)
        }
    }

    /// A visit's true length given it has lasted `elapsed` minutes already (drawn again until it is longer:
    /// what the oracle knows of someone inside).
    func remainingVisitMinutes(after elapsed: Double, _ random: inout SimRandom) -> Double {
        for _ in 0..<200 {
            let visit = visitMinutes(&random)
            if visit > elapsed { return visit - elapsed }
        }
        return meanVisitMinutes / 4
    }
}
