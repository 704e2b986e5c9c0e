import ArgumentParser
import Foundation
import Logging
import StoreSimulation
import StrictTOML

/// `clup-sim SCENARIO.toml` (or `--drawn SEED`, a store drawn at random): store days on a virtual clock through clup-server's own code, every wait
/// estimator scored against the best possible (the oracle). Prints a table, or with `--json` the summary;
/// `--csv FILE` writes one line a scored ticket.
@main
struct ClupSim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clup-sim",
        abstract: "Simulate store days and score the wait estimators against the best possible."
    )

    @Argument(help: "The scenario file (TOML): store, arrivals, visits.")
    var scenario: String?

    @Option(help: "Simulate a store drawn at random with this seed (Scenario.drawn) instead of a file.")
    var drawn: UInt64?

    @Flag(help: "Print the summary as JSON.")
    var json = false

    @Option(help: "Write one CSV line per scored ticket to this file.")
    var csv: String?

    @Option(help: "Simulate this many days instead of the scenario's (the last scored_days are scored).")
    var days: Int?

    @Option(
        help: """
            Compare how app holders follow their ticket instead of scoring the estimators: look, leave-by, \
            oracle-journey, or all (each on the same shoppers).
            """
    )
    var follow: String?

    func run() async throws {
        var scenario: Scenario
        if let drawn {
            scenario = Scenario.drawn(seed: drawn)
            print(scenario.parameters)
        } else if let path = self.scenario {
            do {
                scenario = try Scenario.load(path: path)
            } catch {
                FileHandle.standardError.write(Data("clup-sim: \(error)\n".utf8))
                throw ExitCode(65)
            }
        } else {
            FileHandle.standardError.write(Data("clup-sim: give a scenario file, or --drawn SEED\n".utf8))
            throw ExitCode(64)
        }
        if let days {
            scenario.days = max(days, 1)
            scenario.scoredDays = min(scenario.scoredDays, scenario.days)
        }
        var logger = Logger(label: "clup-sim")
        logger.logLevel = .warning
        if let follow {
            let policies = follow == "all" ? FollowPolicy.allCases : FollowPolicy(rawValue: follow).map { [$0] }
            guard let policies else {
                FileHandle.standardError.write(
                    Data("clup-sim: --follow is look, leave-by, oracle-journey or all, not '\(follow)'\n".utf8)
                )
                throw ExitCode(64)
            }
            var rows: [FollowFigures] = []
            for policy in policies {
                let simulation = try await Simulation(scenario, follow: policy, scoresEstimators: false, logger: logger)
                _ = try await simulation.run()
                rows.append(simulation.followFigures)
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(rows), as: UTF8.self))
            } else {
                print(SummaryTable.follow(scenario.name, rows))
            }
            return
        }
        let simulation = try await Simulation(scenario, logger: logger)
        let score = try await simulation.run()
        let summary = score.summary(scenario: scenario.name, model: simulation.model, truth: scenario)
        if let csv { try score.csv().write(toFile: csv, atomically: true, encoding: .utf8) }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(summary), as: UTF8.self))
        } else {
            print(SummaryTable.text([summary]))
        }
    }
}
