import Foundation
import Logging
import StoreSimulation

/// `--only estimate`, third part: how app holders follow their ticket (``FollowPolicy``), each named scenario
/// played three times on the same shoppers, without scoring the estimators (the oracle would be most of the time).
/// Goals (issue 49): `leave-by` against `look`, at least 50 % fewer minutes at the door a holder and at least 30 %
/// fewer tickets expired unused, with no more empty places than `oracle-journey` + 10 %.
extension EstimateBenchmarks {
    static func follow(_ scenarios: [Scenario], workers: Int) async throws {
        let logger = {
            var logger = Logger(label: "clup-bench.follow")
            logger.logLevel = .warning
            return logger
        }()
        let runs = scenarios.indices.flatMap { index in FollowPolicy.allCases.map { (index, $0) } }
        var results = [[FollowPolicy: FollowFigures]](repeating: [:], count: scenarios.count)
        try await pool(runs.count, workers: workers) { run in
            let (index, policy) = runs[run]
            let simulation = try await Simulation(
                scenarios[index],
                follow: policy,
                scoresEstimators: false,
                logger: logger
            )
            _ = try await simulation.run()
            return simulation.followFigures
        } done: { run, figures in
            let (index, policy) = runs[run]
            results[index][policy] = figures
            if results[index].count == FollowPolicy.allCases.count {
                let rows = FollowPolicy.allCases.compactMap { results[index][$0] }
                FileHandle.standardOutput.write(Data((SummaryTable.follow(scenarios[index].name, rows) + "\n").utf8))
            }
        }
        print("\nfollowing the ticket: leave-by against look (door minutes, expired unused) and oracle-journey")
        print("  scenario              door min cut  expired cut  empty places vs oracle-journey  goals")
        for (scenario, result) in zip(scenarios, results) {
            guard let look = result[.look], let leaveBy = result[.leaveBy], let oracle = result[.oracleJourney]
            else { continue }
            let doorCut = cut(look.doorMinutesPerHolder, to: leaveBy.doorMinutesPerHolder)
            let expiredCut = cut(Double(look.expiredUnused), to: Double(leaveBy.expiredUnused))
            let empty =
                oracle.emptyPlaceMinutesPerHour > 0
                ? leaveBy.emptyPlaceMinutesPerHour / oracle.emptyPlaceMinutesPerHour - 1 : 0
            let met = doorCut >= 0.5 && expiredCut >= 0.3 && empty <= 0.1
            print(
                "  " + scenario.name.padding(toLength: 20, withPad: " ", startingAt: 0)
                    + String(format: "  %11.0f%%  %10.0f%%  %+29.0f%%  ", doorCut * 100, expiredCut * 100, empty * 100)
                    + (met ? "met" : "NOT MET")
            )
        }
    }

    /// The share by which `after` is below `before` (0 where both are 0; negative where it grew).
    static func cut(_ before: Double, to after: Double) -> Double {
        before > 0 ? 1 - after / before : (after > 0 ? -1 : 0)
    }
}
