import Foundation
import Logging
import StoreSimulation

/// `--only estimate`: every scenario of `Benchmarks/scenarios` through `clup-sim`'s simulation (clup-server's
/// own queue, estimator, expiry and model refresh on a virtual clock), each estimator scored against the oracle.
/// Goals (issue 31): clup MAE ÷ oracle MAE ≤ 1.2 and clup ahead of every other baseline in every scenario, the
/// told range holding the actual wait 75–90% of the time, clup computed in ≤ 50 µs a ticket.
enum EstimateBenchmarks {
    /// The named scenarios of `directory` one at a time (their µs a ticket is the estimate's cost alone), then
    /// `drawn` stores drawn at random (seeds 1…`drawn`) on every core, each store's table printed as it ends;
    /// then the named scenarios' summary and the drawn stores' distribution.
    static func run(scenarios directory: String, drawn: Int) async throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".toml") }
            .sorted()
        guard !files.isEmpty else { throw BenchError("no scenario files (*.toml) in \(directory)") }
        let scenarios = try files.map { try Scenario.load(path: "\(directory)/\($0)") }
        let stores = drawn > 0 ? (1...UInt64(drawn)).map(Scenario.drawn(seed:)) : []
        let started = ContinuousClock.now
        let named = try await simulate(scenarios, workers: 1)
        let summaries = try await simulate(stores, workers: max(ProcessInfo.processInfo.activeProcessorCount, 1))
        print(
            "\n(\(named.count + stores.count) stores simulated in \((ContinuousClock.now - started).components.seconds) s)"
        )
        summary(of: named)
        if drawn > 0 { Self.drawn(summaries, seeds: drawn) }
        try await follow(scenarios, workers: max(ProcessInfo.processInfo.activeProcessorCount, 1))
    }

    /// Every store's score, in `stores`' order: `workers` at once (a store's simulation is one task), each
    /// store's table printed when it ends.
    static func simulate(_ stores: [Scenario], workers: Int) async throws -> [Score.Summary] {
        let logger = {
            var logger = Logger(label: "clup-bench.estimate")
            logger.logLevel = .warning
            return logger
        }()
        var results = [Score.Summary?](repeating: nil, count: stores.count)
        try await pool(stores.count, workers: workers) { index in
            let scenario = stores[index]
            let simulation = try await Simulation(scenario, logger: logger)
            let score = try await simulation.run()
            return score.summary(scenario: scenario.name, model: simulation.model, truth: scenario)
        } done: { index, summary in
            results[index] = summary
            // Written at once (a pipe would hold `print`'s lines until the end: an hour of nothing).
            FileHandle.standardOutput.write(Data((SummaryTable.text([summary]) + "\n").utf8))
        }
        return results.compactMap { $0 }
    }

    /// Jobs `0..<count`, `workers` at once (a job is one task); each result handed to `done` as its job ends.
    static func pool<Result: Sendable>(
        _ count: Int,
        workers: Int,
        _ job: @escaping @Sendable (Int) async throws -> Result,
        done: (Int, Result) -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: (Int, Result).self) { group in
            var next = 0
            func start() {
                guard next < count else { return }
                let index = next
                next += 1
                group.addTask { (index, try await job(index)) }
            }
            for _ in 0..<workers { start() }
            while let (index, result) = try await group.next() {
                done(index, result)
                start()
            }
        }
    }

    /// The named scenarios' table.
    static func summary(of summaries: [Score.Summary]) {
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
