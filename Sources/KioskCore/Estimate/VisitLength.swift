import RealModule

/// How long a visit lasts: a log-normal distribution given by its mean and coefficient of variation (the
/// shape grocery visits have: nobody leaves at once, a long tail of big shops). Learnt from the store's
/// admissions and exits (``WaitModel/learn(_:)``); until then the store's configured average visit with a
/// coefficient of variation of 0.5.
public struct VisitLength: Sendable, Hashable, Codable {
    /// Mean visit, minutes.
    public var meanMinutes: Double
    /// Standard deviation ÷ mean.
    public var cv: Double

    /// The coefficient of variation assumed until a store's exits say otherwise.
    public static let priorCV = 0.5
    /// The range a learnt mean and variation are kept within (a broken exit counter must not make visits
    /// of a second or a day).
    public static let meanRange = 1.0...600.0
    public static let cvRange = 0.1...2.0

    public init(meanMinutes: Double, cv: Double = priorCV) {
        self.meanMinutes = min(max(meanMinutes, Self.meanRange.lowerBound), Self.meanRange.upperBound)
        self.cv = min(max(cv, Self.cvRange.lowerBound), Self.cvRange.upperBound)
    }

    /// The log-normal's parameters: log x ~ N(mu, sigma²).
    var sigma: Double { Double.log(onePlus: cv * cv).squareRoot() }
    var mu: Double { Double.log(meanMinutes) - sigma * sigma / 2 }

    /// P(visit ≤ minutes).
    public func cdf(minutes: Double) -> Double {
        guard minutes > 0 else { return 0 }
        return 0.5 * Double.erfc(-(Double.log(minutes) - mu) / (sigma * 2.0.squareRoot()))
    }

    /// The visit's CDF on a grid of `step` up to `steps` steps: `[F(0), F(step), …]`.
    public func cdfGrid(step: Duration, steps: Int) -> [Double] {
        let minutes = step.minutes
        return (0...steps).map { cdf(minutes: Double($0) * minutes) }
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
