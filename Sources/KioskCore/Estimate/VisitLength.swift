import RealModule

/// How long a visit lasts: a distribution given by its mean, its coefficient of variation and its family —
/// log-normal (nobody leaves at once, a long tail of big shops: the shape grocery visits usually have) or gamma
/// (from the exponential of a corner shop, where someone inside for long is as likely to leave as someone just
/// in, to the bell of a hypermarket's weekly shop). Learnt from the store's admissions and exits
/// (``WaitModel/learn(_:prior:now:)``), the family whose exits are likelier; until then the store's configured
/// average visit, log-normal with a coefficient of variation of 0.5.
public struct VisitLength: Sendable, Hashable {
    /// Mean visit, minutes.
    public var meanMinutes: Double
    /// Standard deviation ÷ mean.
    public var cv: Double
    public var family: Family

    public enum Family: String, Sendable, Hashable, Codable, CaseIterable {
        case logNormal = "lognormal"
        case gamma

        /// The variation a visit of this family may have. A gamma's goes up to the exponential's (1): beyond,
        /// its density is highest at zero — visits that end as they begin, which nobody makes, and which a fit
        /// would take from a full store's exits and admissions falling in the same minute (each exit lets the
        /// next one in).
        public var cvRange: ClosedRange<Double> {
            switch self {
            case .logNormal: VisitLength.cvRange
            case .gamma: VisitLength.cvRange.lowerBound...1
            }
        }
    }

    /// The coefficient of variation assumed until a store's exits say otherwise.
    public static let priorCV = 0.5
    /// The range a learnt mean and variation are kept within (a broken exit counter must not make visits
    /// of a second or a day).
    public static let meanRange = 1.0...600.0
    public static let cvRange = 0.1...2.0

    public init(meanMinutes: Double, cv: Double = priorCV, family: Family = .logNormal) {
        self.meanMinutes = min(max(meanMinutes, Self.meanRange.lowerBound), Self.meanRange.upperBound)
        self.cv = min(max(cv, family.cvRange.lowerBound), family.cvRange.upperBound)
        self.family = family
    }

    /// The log-normal's parameters: log x ~ N(mu, sigma²).
    var sigma: Double { Double.log(onePlus: cv * cv).squareRoot() }
    var mu: Double { Double.log(meanMinutes) - sigma * sigma / 2 }
    /// The gamma's shape (1 is the exponential) and scale, minutes.
    var shape: Double { 1 / (cv * cv) }
    var scale: Double { meanMinutes * cv * cv }

    /// P(visit ≤ minutes).
    public func cdf(minutes: Double) -> Double {
        guard minutes > 0 else { return 0 }
        switch family {
        case .logNormal:
            return 0.5 * Double.erfc(-(Double.log(minutes) - mu) / (sigma * 2.0.squareRoot()))
        case .gamma:
            return Self.regularizedGammaP(shape, minutes / scale)
        }
    }

    /// A length that almost no visit reaches (beyond it, less than about 10⁻⁴ of visits), minutes.
    var reachMinutes: Double {
        switch family {
        case .logNormal: Double.exp(mu + 4 * sigma)
        case .gamma: meanMinutes * (1 + 10 * cv)
        }
    }

    /// The visit's CDF on a grid of `step` up to `steps` steps: `[F(0), F(step), …]`.
    public func cdfGrid(step: Duration, steps: Int) -> [Double] {
        let minutes = step.minutes
        return (0...steps).map { cdf(minutes: Double($0) * minutes) }
    }

    /// P(a, x), the regularized lower incomplete gamma function: its series below a + 1, one minus the continued
    /// fraction of Q(a, x) (modified Lentz) above — each converges fast on its side.
    static func regularizedGammaP(_ a: Double, _ x: Double) -> Double {
        guard x > 0 else { return 0 }
        let prefix = Double.exp(a * Double.log(x) - x - Double.logGamma(a))
        let epsilon = 1e-13
        if x < a + 1 {
            var n = a
            var term = 1 / a
            var sum = term
            for _ in 0..<1_000 {
                n += 1
                term *= x / n
                sum += term
                if abs(term) < abs(sum) * epsilon { break }
            }
            return min(sum * prefix, 1)
        }
        let tiny = 1e-300
        var b = x + 1 - a
        var c = 1 / tiny
        var d = 1 / b
        var fraction = d
        for i in 1...1_000 {
            let an = -Double(i) * (Double(i) - a)
            b += 2
            d = an * d + b
            if abs(d) < tiny { d = tiny }
            c = b + an / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            fraction *= delta
            if abs(delta - 1) < epsilon { break }
        }
        return min(max(1 - prefix * fraction, 0), 1)
    }
}

extension VisitLength: Codable {
    enum CodingKeys: String, CodingKey {
        case meanMinutes, cv, family
    }

    /// A model from a server before visit families is log-normal.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            meanMinutes: try c.decode(Double.self, forKey: .meanMinutes),
            cv: try c.decode(Double.self, forKey: .cv),
            family: try c.decodeIfPresent(Family.self, forKey: .family) ?? .logNormal
        )
    }
}

extension Duration {
    /// This duration in minutes, fractional.
    public var minutes: Double {
        let (seconds, attoseconds) = components
        return (Double(seconds) + Double(attoseconds) / 1e18) / 60
    }

    /// A duration of `minutes` (fractional), to the millisecond.
    public static func minutes(_ minutes: Double) -> Duration {
        .milliseconds(Int64((minutes * 60_000).rounded()))
    }
}
