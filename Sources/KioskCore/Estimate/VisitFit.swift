import RealModule

/// The visit length whose exits are the likeliest, given when people came in and when (anonymous) people left:
/// the expected exits in a bin are the admissions before it convolved with the visit's probability of ending in
/// it; exits per bin are Poisson with that mean (a golden-section search on the log-likelihood).
struct VisitFit {
    let timeline: Timeline
    let start: VisitLength

    /// The width of a bin: a tenth of the visit, 1 to 10 whole minutes.
    var binMinutes: Int { Int(min(max(start.meanMinutes / 10, 1), 10)) }

    /// The likeliest family and variation for the mean Little's law gives (the mean of the start): the exits of
    /// a store with people coming and going all day tell the mean poorly — visits overlap, and a likelihood ridge
    /// lets mean and spread trade for each other — but Little's law tells it exactly; their timing after a
    /// rush tells the spread, and whether someone inside for long is about to leave (log-normal with a long
    /// tail, gamma of shape above 1) or as likely to as anyone (the exponential, gamma of shape 1).
    func best() -> VisitLength {
        let width = binMinutes
        let (admissions, exits) = timeline.binned(width)
        let mean = start.meanMinutes
        func likelihood(_ visit: VisitLength) -> Double {
            Self.logLikelihood(admissions: admissions, exits: exits, visit, Double(width))
        }
        let fits = VisitLength.Family.allCases.map { family in
            let cv = Self.goldenMaximum(in: family.cvRange) {
                likelihood(VisitLength(meanMinutes: mean, cv: $0, family: family))
            }
            let visit = VisitLength(meanMinutes: mean, cv: cv, family: family)
            return (visit, likelihood(visit))
        }
        return fits.max { $0.1 < $1.1 }?.0 ?? start
    }

    /// The binned Poisson log-likelihood of the exits, up to a constant. An admission is taken at the middle of
    /// its bin.
    static func logLikelihood(admissions: [Double], exits: [Double], _ visit: VisitLength, _ width: Double) -> Double {
        guard !admissions.isEmpty else { return 0 }
        let kernel = Int(visit.reachMinutes / width) + 2
        // P(a visit begun in the middle of bin 0 ends in bin k).
        var ends = [Double](repeating: 0, count: kernel)
        var previous = 0.0
        for k in 0..<kernel {
            let cdf = visit.cdf(minutes: (Double(k) + 0.5) * width)
            ends[k] = cdf - previous
            previous = cdf
        }
        // Each admission adds its share to the bins it may end in (only bins someone came in: a quiet store's
        // minutes are mostly empty); a bin nobody admitted within a visit's reach expects nothing and weighs
        // nothing.
        var mean = [Double](repeating: 0, count: exits.count)
        mean.withUnsafeMutableBufferPointer { mean in
            ends.withUnsafeBufferPointer { ends in
                for bin in admissions.indices where admissions[bin] > 0 {
                    let count = admissions[bin]
                    for k in 0..<min(kernel, mean.count - bin) { mean[bin + k] += count * ends[k] }
                }
            }
        }
        var total = 0.0
        var lastAdmission = -kernel
        for bin in exits.indices {
            if admissions[bin] > 0 { lastAdmission = bin }
            guard bin - lastAdmission < kernel else { continue }
            let expected = mean[bin] + 1e-6
            total += exits[bin] * Double.log(expected) - expected
        }
        return total
    }

    /// The argument of `f`'s maximum in `range` (f unimodal there), to a thousandth of the range.
    static func goldenMaximum(in range: ClosedRange<Double>, _ f: (Double) -> Double) -> Double {
        let ratio = (5.0.squareRoot() - 1) / 2
        var low = range.lowerBound
        var high = range.upperBound
        var x1 = high - ratio * (high - low)
        var x2 = low + ratio * (high - low)
        var f1 = f(x1)
        var f2 = f(x2)
        while high - low > (range.upperBound - range.lowerBound) / 1000 {
            if f1 < f2 {
                low = x1
                x1 = x2
                f1 = f2
                x2 = low + ratio * (high - low)
                f2 = f(x2)
            } else {
                high = x2
                x2 = x1
                f2 = f1
                x1 = high - ratio * (high - low)
                f1 = f(x1)
            }
        }
        return (low + high) / 2
    }
}
