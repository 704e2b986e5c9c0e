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
