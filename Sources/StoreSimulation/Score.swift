import Foundation
import KioskCore

/// How each estimator did on the scored days: for every ticket that joined the line, what each said when it
/// joined against how long it waited until it was called.
public struct Score: Sendable {
    public enum Estimator: String, Sendable, CaseIterable, Codable {
        /// The shipped estimator (``WaitEstimator``): what the ticket was told.
        case clup
        /// The best possible: the median of many forward runs from the same state with the true parameters.
        case oracle
        /// The RASD's: average visit × people ahead.
        case rasdNaive = "rasd-naive"
        /// (ahead − free + 1) × average visit ÷ capacity (the configured average visit).
        case queueLength = "queue-length"
        /// The estimator shipped before this one (admissions per weekday-hour over four weeks).
        case previous
    }

    struct Row: Sendable {
        var kind: TicketKind
        var joined: Timestamp
        var ahead: Int
        var told: [Estimator: WaitRange]
        var waited: Duration?
        /// What the shipped estimate cost for this ticket (a page view's roll: the CSV's `clup_us`).
        var clup: Duration = .zero
    }

    var rows: [Row] = []
    /// Scored tickets not called yet.
    var pending: Set<TicketID> = []
    public var noShows = 0
    public var lateArrivals = 0
    /// People at the door (holding a ticket, not let in) × time, over the scored days' opening hours.
    var doorPersonMinutes = 0.0
    var openMinutes = 0.0
    /// People at the door on average over the scored days' opening hours.
    var meanPeopleAtDoor: Double { openMinutes > 0 ? doorPersonMinutes / openMinutes : 0 }
    /// Time spent computing each estimator, over the tickets it estimated.
    var computing: [Estimator: Duration] = [:]

    mutating func add(
        _ ticket: TicketID,
        _ told: [Estimator: WaitRange],
        kind: TicketKind,
        ahead: Int,
        joined: Timestamp,
        clup: Duration = .zero
    )
        -> Int
    {
        rows.append(Row(kind: kind, joined: joined, ahead: ahead, told: told, clup: clup))
        pending.insert(ticket)
        return rows.count - 1
    }

    mutating func called(_ row: Int, after waited: Duration) {
        rows[row].waited = max(waited, .zero)
    }

    mutating func close() {
        pending.removeAll()
    }

    /// The figures of one estimator over the scored tickets that were called.
    public struct Figures: Codable, Sendable, Equatable {
        public var maeSeconds: Double
        public var p90AbsSeconds: Double
        /// Share told within ±3 minutes.
        public var within3min: Double
        /// Mean of told − actual (positive: told too long).
        public var biasSeconds: Double
        /// Share whose told range held the actual wait (nil: no range), and over how many tickets told one.
        public var rangeCoverage: Double?
        public var ranged: Int?
        /// Microseconds to compute one estimate.
        public var microsecondsPerTicket: Double?
    }

    public func figures(_ estimator: Estimator) -> Figures {
        var errors: [Double] = []
        var bias = 0.0
        var inside = 0
        var ranged = 0
        for row in rows {
            guard let waited = row.waited, let told = row.told[estimator] else { continue }
            let error = (told.point - waited).secondsValue
            errors.append(abs(error))
            bias += error
            if told.isToldAsRange {
                ranged += 1
                if told.holds(waited) { inside += 1 }
            }
        }
        guard !errors.isEmpty else {
            return Figures(
                maeSeconds: 0,
                p90AbsSeconds: 0,
                within3min: 0,
                biasSeconds: 0,
                rangeCoverage: nil,
                ranged: nil
            )
        }
        let sorted = errors.sorted()
        let spent = computing[estimator].map {
            $0.secondsValue * 1e6 / Double(rows.count { $0.told[estimator] != nil })
        }
        return Figures(
            maeSeconds: errors.reduce(0, +) / Double(errors.count),
            p90AbsSeconds: sorted[min(Int(Double(sorted.count) * 0.9), sorted.count - 1)],
            within3min: Double(errors.count { $0 <= 180 }) / Double(errors.count),
            biasSeconds: bias / Double(errors.count),
            rangeCoverage: ranged > 0 ? Double(inside) / Double(ranged) : nil,
            ranged: ranged > 0 ? ranged : nil,
            microsecondsPerTicket: spent
        )
    }

    /// Added to both errors before one is divided by the other: a wait is told in whole minutes, and in a store
    /// whose waits are nearly all zero an error of 3 s against the oracle's 1 s is no defect (a quarter of a
    /// minute changes a ratio of errors of minutes by a few hundredths).
    public static let errorFloorSeconds = 15.0

    /// One estimator's mean absolute error over another's, with the floor.
    public static func ratio(_ error: Double, over other: Double) -> Double {
        (error + errorFloorSeconds) / (other + errorFloorSeconds)
    }

    /// The summary `clup-sim --json` prints.
    public struct Summary: Codable, Sendable {
        public struct Store: Codable, Sendable {
            public var noShows: Int
            public var lateArrivals: Int
            public var meanPeopleAtDoor: Double
        }

        public var scenario: String
        public var scored: Int
        public var estimators: [String: Figures]
        public var store: Store
        /// clup's mean absolute error over the oracle's, each with ``Score/errorFloorSeconds`` added (the goal:
        /// at most 1.2).
        public var clupOverOracle: Double
        /// What the server learnt by the end: mean visit (minutes), its variation, the no-show share, the mean
        /// delays from a call to the door (minutes) of app, planned app and paper holders, and the no-show share
        /// of app tickets by their wait when called (`appNoShow<2`, … `appNoShow60+`, in minutes).
        public var learnt: [String: Double]
        /// The scenario's own values of what can be compared: mean visit, its variation, the share of app
        /// holders and bookings who never come, and the share that came after their window on the scored days
        /// (empty when not given).
        public var truth: [String: Double] = [:]
    }

    public func summary(scenario: String, model: WaitModel? = nil, truth: Scenario? = nil) -> Summary {
        let all = Dictionary(uniqueKeysWithValues: Estimator.allCases.map { ($0.rawValue, figures($0)) })
        let oracle = all["oracle"]?.maeSeconds ?? 0
        return Summary(
            scenario: scenario,
            scored: rows.count { $0.waited != nil },
            estimators: all,
            store: .init(
                noShows: noShows,
                lateArrivals: lateArrivals,
                meanPeopleAtDoor: meanPeopleAtDoor
            ),
            clupOverOracle: Self.ratio(all["clup"]?.maeSeconds ?? 0, over: oracle),
            learnt: model.map { model in
                var learnt = [
                    "visitMeanMinutes": model.visit.meanMinutes, "visitCV": model.visit.cv, "noShow": model.noShow,
                    "neverCame": model.neverCame, "cameAfterWindow": model.cameAfterWindow,
                    "appDelayMinutes": Self.meanMinutes(model.appDelay),
                    "plannedAppDelayMinutes": Self.meanMinutes(model.plannedAppDelay),
                    "paperDelayMinutes": Self.meanMinutes(model.paperDelay), "bookingNoShow": model.bookingNoShow,
                ]
                for (bin, share) in model.appNoShowByWait.enumerated() { learnt[Self.waitBinName(bin)] = share }
                for (group, width) in model.rangeShift.widths.enumerated() { learnt[Self.shiftName(group)] = width }
                return learnt
            } ?? [:],
            truth: truth.map {
                let holders = Double(max(rows.count { $0.kind != .paper }, 1))
                return [
                    "visitMeanMinutes": $0.meanVisitMinutes,
                    "visitCV": $0.distribution == .exponential ? 1 : $0.sdVisitMinutes / $0.meanVisitMinutes,
                    "noShow": $0.noShow, "cameAfterWindow": Double(lateArrivals) / holders,
                ]
            } ?? [:]
        )
    }

    /// The name of a no-show bin of ``WaitModel/appNoShowByWait``: `appNoShow<2`, `appNoShow2-5`, … `appNoShow60+`.
    static func waitBinName(_ bin: Int) -> String { binName("appNoShow", bin, edges: WaitModel.noShowWaitEdges) }

    /// The name of a group's ``RangeShift`` width: `rangeShift<3`, `rangeShift3-6`, … `rangeShift90+` (told minutes).
    static func shiftName(_ group: Int) -> String { binName("rangeShift", group, edges: RangeCalibration.edges) }

    /// `prefix` and the minutes of bin `bin` of those that `edges` divide: `<first`, `a-b`, … `last+`.
    static func binName(_ prefix: String, _ bin: Int, edges: [Double]) -> String {
        let edges = edges.map { Int($0) }
        if bin == 0 { return "\(prefix)<\(edges[0])" }
        if bin >= edges.count { return "\(prefix)\(edges[edges.count - 1])+" }
        return "\(prefix)\(edges[bin - 1])-\(edges[bin])"
    }

    /// The mean of a delay's ``WaitModel/delayBinSeconds`` bins, in minutes (a bin counts at its middle).
    static func meanMinutes(_ shares: [Double]) -> Double {
        let bin = Double(WaitModel.delayBinSeconds)
        return shares.enumerated().reduce(0) { $0 + $1.element * (Double($1.offset) + 0.5) * bin } / 60
    }

    /// One line a scored ticket: when it joined, its kind, people ahead, its actual wait, what each said, and
    /// what the shipped estimate cost (µs).
    public func csv() -> String {
        var lines = [
            "joined,kind,ahead,waited_s,"
                + Estimator.allCases.map { "\($0.rawValue)_s,\($0.rawValue)_low_s,\($0.rawValue)_high_s" }.joined(
                    separator: ","
                ) + ",clup_us"
        ]
        for row in rows {
            guard let waited = row.waited else { continue }
            let told = Estimator.allCases.map { estimator -> String in
                guard let range = row.told[estimator] else { return ",," }
                return "\(Int(range.point.secondsValue)),\(Int(range.low.secondsValue)),\(Int(range.high.secondsValue))"
            }
            let kind = ["paper", "app", "booking"][Int(row.kind.rawValue)]
            lines.append(
                "\(row.joined.milliseconds),\(kind),\(row.ahead),\(Int(waited.secondsValue)),\(told.joined(separator: ","))"
                    + String(format: ",%.1f", row.clup.secondsValue * 1e6)
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension Duration {
    var secondsValue: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
