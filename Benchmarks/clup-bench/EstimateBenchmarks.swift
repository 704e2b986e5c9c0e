import Foundation
import Logging
import StoreSimulation

/// `--only estimate`: every scenario of `Benchmarks/scenarios` through `clup-sim`'s simulation (clup-server's
/// own queue, estimator, expiry and model refresh on a virtual clock), each estimator scored against the oracle.
/// Goals (issue 31): clup MAE ÷ oracle MAE ≤ 1.2 and clup ahead of every other baseline in every scenario, the
/// told range holding the actual wait 75–90% of the time, clup computed in ≤ 50 µs a ticket.
enum EstimateBenchmarks {
    static func scenarios(in directory: String) async throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".toml") }
            .sorted()
        guard !files.isEmpty else { throw BenchError("no scenario files (*.toml) in \(directory)") }
        var logger = Logger(label: "clup-bench.estimate")
        logger.logLevel = .warning
        var summaries: [Score.Summary] = []
        for file in files {
            let scenario = try Scenario.load(path: "\(directory)/\(file)")
            let simulation = try await Simulation(scenario, logger: logger)
            let score = try await simulation.run()
            let summary = score.summary(scenario: scenario.name, model: simulation.model, truth: scenario)
            print(SummaryTable.text([summary]))
            summaries.append(summary)
        }
        print("\nwait estimate: clup against the oracle and the baselines")
        print("  scenario              clup MAE  oracle MAE  ratio  best baseline MAE  in range  µs/ticket")
        for summary in summaries {
            let clup = summary.estimators["clup"]
            let baselines = summary.estimators.filter { $0.key != "clup" && $0.key != "oracle" }
            let best = baselines.values.map(\.maeSeconds).min() ?? 0
            print(
                "  " + summary.scenario.padding(toLength: 20, withPad: " ", startingAt: 0)
                    + String(
                        format: " %7.2f m  %8.2f m  %5.2f  %15.2f m  %7.0f%%  %9.1f",
                        (clup?.maeSeconds ?? 0) / 60,
                        (summary.estimators["oracle"]?.maeSeconds ?? 0) / 60,
                        summary.clupOverOracle,
                        best / 60,
                        (clup?.rangeCoverage ?? 0) * 100,
                        clup?.microsecondsPerTicket ?? 0
                    )
            )
        }
    }
}
