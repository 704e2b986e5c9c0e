import KioskCore

/// Stores drawn at random (seeded), to score the estimator where nobody tuned it: the named scenarios are a
/// handful of stores its authors looked at; a drawn store is any of these, in any combination.
///
/// - capacity 5–300 (even on a log scale), opening hours of 10–15 hours;
/// - visits log-normal, gamma or exponential, 6–60 minutes on average (at least a quarter of a minute per place:
///   at most 240 people an hour through the door), cv 0.2–1.5 (exponential: 1); the manager configured the
///   visit ×0.5–×2 off;
/// - peak load 0.6–1.5 times what the store serves in an hour on a weekday (a line forms above 1), the hours
///   shaped by a morning, a noon and an evening peak, weekends 0.6–1.7 times a weekday but at most 1.6 times
///   what the store serves;
/// - app holders 0–80 %, bookings 0–30 %, no-shows 0–30 %, journeys to the door from 1 to 40 minutes against a
///   call window of 5–20 (both ways);
/// - half the stores have a rush (1–3 times their capacity more people in one hour of the last week), a third are
///   in their first two or three weeks (every day scored).
extension Scenario {
    public static func drawn(seed: UInt64) -> Scenario {
        var random = SimRandom(mixing: seed)
        var s = Scenario()
        s.name = "drawn-\(seed)"
        s.seed = random.next()
        let newStore = random.chance(1.0 / 3)
        s.days = newStore ? Int(random.uniform(14...21)) : Int(random.uniform(21...35))
        s.scoredDays = newStore ? s.days : 5
        s.capacity = Int(Self.logUniform(5...300, &random).rounded())
        let family = Distribution.allCases[Int(random.uniform(0...2.999))]
        s.distribution = family
        // A store serves at most 240 people an hour at its door (a store of 300 places has visits of 75 minutes
        // or more): beyond, the oracle's forward runs make one store cost hours of the benchmark.
        s.meanVisitMinutes = max(Self.logUniform(6...60, &random), Double(s.capacity) / 4)
        let cv = family == .exponential ? 1 : random.uniform(0.2...1.5)
        s.sdVisitMinutes = s.meanVisitMinutes * cv
        s.averageVisitMinutes = max(1, Int((s.meanVisitMinutes * Self.logUniform(0.5...2, &random)).rounded()))
        s.callWindowMinutes = Int(random.uniform(5...20.999))
        let opens = Int(random.uniform(7...9.999))
        let hours = Int(random.uniform(10...15.999))
        s.opens = TimeOfDay(hour: opens, minute: 0)
        s.closes = TimeOfDay(hour: min(opens + hours, 23), minute: 0)
        s.appShare = random.uniform(0...0.8)
        s.bookingShare = min(random.uniform(0...0.3), 0.9 - s.appShare)
        s.expectedVisitShare = random.uniform(0...1)
        s.noShow = random.uniform(0...0.3)
        let from = random.uniform(1...25)
        s.travelMinutes = from...(from + random.uniform(1...15))
        // People an hour at a weekday's peak: the load times what the store serves in an hour.
        let served = Double(s.capacity) * 60 / s.meanVisitMinutes
        let peak = served * random.uniform(0.6...1.5)
        let shape = (0..<s.openHours).map { hour -> Double in
            let x = Double(hour) / Double(max(s.openHours - 1, 1))
            let peaks = [0.25, 0.5, 0.85].map { center in Self.bump(x, center: center, width: 0.12) }
            return 0.35 + 0.65 * (peaks.max() ?? 0)
        }
        // A weekend's peak, at most ``busiestLoad`` times what the store serves.
        let weekendPeak = min(peak * random.uniform(0.6...1.7), served * Self.busiestLoad)
        s.perHour = (0..<7).map { weekday in
            shape.map { min((weekday >= 5 ? weekendPeak : peak) * $0, 10_000) }
        }
        if random.chance(0.5) {
            let day = s.days - 1 - Int(random.uniform(0...6.999))
            s.rush = (
                max(day, 0), Int(random.uniform(0...Double(s.openHours) - 0.001)),
                Double(s.capacity) * random.uniform(1...3)
            )
        }
        return s
    }

    /// What a drawn store is, in one line (to name the worst ones).
    public var parameters: String {
        func f(_ value: Double) -> String { String(format: "%.1f", value) }
        return "capacity \(capacity), visit \(distribution.rawValue) \(f(meanVisitMinutes)) min (cv "
            + "\(String(format: "%.2f", sdVisitMinutes / meanVisitMinutes))), configured \(averageVisitMinutes), "
            + "call window \(callWindowMinutes), app \(Int(appShare * 100))%, bookings \(Int(bookingShare * 100))%, "
            + "no-shows \(Int(noShow * 100))%, journey \(f(travelMinutes.lowerBound))–\(f(travelMinutes.upperBound)) "
            + "min, peak \(Int(perHour.flatMap { $0 }.max() ?? 0))/h, \(days) days"
            + (rush.map { ", rush +\(Int($0.people)) on day \($0.day)" } ?? "")
    }

    /// The most people an hour a drawn store's peak brings, in times what it serves an hour: beyond, its line
    /// grows for hours on end and reaches thousands (a store that would stop issuing tickets), and the oracle's
    /// forward runs, one a ticket along the whole line, make one store cost more than an hour of the benchmark.
    static let busiestLoad = 1.6

    private static func logUniform(_ range: ClosedRange<Double>, _ random: inout SimRandom) -> Double {
        .exp(random.uniform(.log(range.lowerBound)...(.log(range.upperBound))))
    }

    private static func bump(_ x: Double, center: Double, width: Double) -> Double {
        .exp(-(x - center) * (x - center) / (2 * width * width))
    }
}
