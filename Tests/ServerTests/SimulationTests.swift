import ClusterRigs
import Foundation
import KioskCore
import Logging
import Testing

@testable import StoreSimulation

/// A short `clup-sim` run: a small store's two days through clup-server's own code on a virtual clock. The
/// shipped estimator must be near the oracle, far ahead of the RASD's formula, and its range must hold the
/// actual wait about as often as it says; the CLI prints the summary the issue names, and refuses a broken
/// scenario with the key and what to write.
@Suite struct SimulationTests {
    static let scenario = """
        seed = 5
        days = 3
        scored_days = 1
        [store]
        capacity = 6
        average_visit_minutes = 15
        call_window_minutes = 10
        time_zone = "Europe/Rome"
        opens = "08:00"
        closes = "13:00"
        [arrivals]
        per_hour = [[20, 30, 40, 35, 25]]
        app_share = 0.4
        booking_share = 0.1
        no_show = 0.08
        travel_from_minutes = 3
        travel_to_minutes = 12
        [visit]
        distribution = "gamma"
        mean_minutes = 12
        sd_minutes = 6
        """

    @Test func aShortRunScoresClupNearTheOracle() async throws {
        var logger = Logger(label: "sim-test")
        logger.logLevel = .warning
        let scenario = try Scenario.parse(Self.scenario, file: "test.toml")
        let simulation = try await Simulation(scenario, logger: logger)
        let summary = try await simulation.run().summary(scenario: "test", model: simulation.model)
        #expect(summary.scored > 60, "\(summary.scored) tickets scored")
        let clup = try #require(summary.estimators["clup"])
        let oracle = try #require(summary.estimators["oracle"])
        let naive = try #require(summary.estimators["rasd-naive"])
        #expect(
            clup.maeSeconds <= 2 * oracle.maeSeconds + 30,
            "clup \(clup.maeSeconds) s, oracle \(oracle.maeSeconds) s"
        )
        #expect(clup.maeSeconds < naive.maeSeconds / 3)
        let coverage = try #require(clup.rangeCoverage)
        #expect((0.6...1).contains(coverage), "range held the wait \(coverage)")
        // The model learnt the true visit (12 min) over the configured 15.
        let learnt = try #require(summary.learnt["visitMeanMinutes"])
        #expect(abs(learnt - 12) < 2.5, "learnt \(learnt) min")
    }

    /// Staff pause the calls for 15 minutes in the second day's busiest hour: the log holds the pause, nobody is
    /// let in by ticket while it holds (the store's people only leave), and a ticket that joins during it is told
    /// the pause's rest.
    @Test func aPauseInTheRushLetsNobodyInAndIsToldItsRest() async throws {
        var logger = Logger(label: "sim-test")
        logger.logLevel = .warning
        let text =
            Self.scenario.replacingOccurrences(of: "days = 3", with: "days = 2")
            + "\n[pause]\nday = 1\nhour = 2\nminute = 10\nminutes = 15\n"
        let scenario = try Scenario.parse(text, file: "pause.toml")
        let simulation = try await Simulation(scenario, logger: logger)
        _ = try await simulation.run()
        let events = try simulation.database.events(store: simulation.store, after: 0, limit: 100_000)
        let pauses = events.compactMap { event -> (Timestamp, Timestamp)? in
            guard case .linePaused(_, let until?, _) = event.body else { return nil }
            return (event.time, until)
        }
        let (from, until) = try #require(pauses.first)
        #expect(pauses.count == 1 && until - from == .seconds(15 * 60))
        let admittedMeanwhile = events.filter { event in
            guard case .ticketAdmitted = event.body else { return false }
            return event.time >= from && event.time < until
        }
        #expect(admittedMeanwhile.isEmpty, "\(admittedMeanwhile.count) let in while the calls were paused")
        #expect(
            events.contains { event in
                if case .ticketAdmitted = event.body { return event.time >= until && event.time < until + .seconds(60) }
                return false
            },
            "the line is called again when the pause ends"
        )
        // The told waits of the pause, read back from a state folded to its middle.
        let middle = from + .seconds(7 * 60)
        let state = QueueState(capacity: scenario.capacity, events: events.filter { $0.time <= middle })
        let told = simulation.live.estimator.wait(position: state.lineLength(at: middle), in: state, at: middle)
        #expect(told.point >= until - middle, "told \(told.point) with \(until - middle) of the pause left")
    }

    /// How app holders follow their ticket (``FollowPolicy``), on the same shoppers: told when to leave, they
    /// stand at the door for less than those who look now and then and leave early so as not to miss the call;
    /// holders farther away than the call window lasts, who tell the page their journey, find their ticket still
    /// called (``HolderJourney``) where those who only look find it expired; and no holder is lost or counted
    /// twice between the policies.
    @Test func holdersToldWhenToLeaveStandLessAtTheDoor() async throws {
        var logger = Logger(label: "sim-test")
        logger.logLevel = .warning
        let text = Self.scenario.replacingOccurrences(of: "days = 3", with: "days = 2")
            .replacingOccurrences(of: "travel_to_minutes = 12", with: "travel_to_minutes = 25")
        let scenario = try Scenario.parse(text, file: "follow.toml")
        var figures: [FollowPolicy: FollowFigures] = [:]
        for policy in FollowPolicy.allCases {
            let simulation = try await Simulation(scenario, follow: policy, scoresEstimators: false, logger: logger)
            let score = try await simulation.run()
            #expect(score.rows.isEmpty, "\(policy): no estimator is scored")
            figures[policy] = simulation.followFigures
        }
        print(SummaryTable.follow("follow", FollowPolicy.allCases.compactMap { figures[$0] }))
        let look = try #require(figures[.look])
        let leaveBy = try #require(figures[.leaveBy])
        let oracle = try #require(figures[.oracleJourney])
        #expect(look.holders > 20 && leaveBy.holders > 20, "\(look.holders), \(leaveBy.holders) holders came in")
        #expect(
            leaveBy.doorMinutesPerHolder < look.doorMinutesPerHolder,
            "leave-by \(leaveBy.doorMinutesPerHolder) min at the door, look \(look.doorMinutesPerHolder)"
        )
        #expect(oracle.doorMinutesPerHolder <= look.doorMinutesPerHolder)
        #expect(
            look.expiredUnused > 0 && Double(leaveBy.expiredUnused) <= 0.7 * Double(look.expiredUnused),
            "expired unused: leave-by \(leaveBy.expiredUnused), look \(look.expiredUnused)"
        )
        for row in [look, leaveBy, oracle] {
            #expect(row.peopleAtDoorP90 >= row.peopleAtDoorMean.rounded(.down), "\(row)")
            #expect(row.emptyPlaceMinutesPerHour >= 0 && row.expiredUnused >= 0)
        }
    }

    /// The drawn stores are forty stores, not twenty pairs (seeded one after another, neighbouring seeds once
    /// shared their parameters), and none is loaded beyond 1.6 times what it serves at its busiest hour.
    @Test func drawnStoresAreApartAndServeTheirPeak() {
        let stores = (1...40).map { Scenario.drawn(seed: UInt64($0)) }
        #expect(Set(stores.map(\.appShare)).count == 40)
        #expect(Set(stores.map(\.travelMinutes.lowerBound)).count == 40)
        #expect(Set(stores.map(\.seed)).count == 40)
        for store in stores {
            let served = Double(store.capacity) * 60 / store.meanVisitMinutes
            let busiest = store.perHour.flatMap { $0 }.max() ?? 0
            #expect(
                busiest <= Scenario.busiestLoad * served + 1e-9,
                "\(store.name): \(busiest) an hour, serves \(served)"
            )
            #expect(busiest >= 0.5 * served, "\(store.name): \(busiest) an hour, serves \(served)")
        }
    }

    /// The queue-length baseline: average visit × the admissions to wait for ÷ capacity.
    @Test func theQueueLengthBaseline() {
        let estimate = QueueLengthEstimate(averageVisit: .seconds(20 * 60), capacity: 10)
        #expect(estimate.wait(peopleAhead: 0, freePlaces: 1) == .zero)
        #expect(estimate.wait(peopleAhead: 5, freePlaces: 0) == .seconds(12 * 60))  // 6 × 20 min ÷ 10
    }

    @Test func theCommandPrintsTheSummaryAndNamesABrokenKey() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("small.toml").path
        try Self.scenario.replacingOccurrences(of: "days = 3", with: "days = 2")
            .write(toFile: good, atomically: true, encoding: .utf8)
        let (status, output) = try Self.run([good, "--json", "--csv", directory.appendingPathComponent("t.csv").path])
        #expect(status == 0, "\(output)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect((summary["scored"] as? Int ?? 0) > 0)
        let estimators = try #require(summary["estimators"] as? [String: [String: Any]])
        #expect(Set(estimators.keys).isSuperset(of: ["clup", "oracle", "rasd-naive", "queue-length", "previous"]))
        for key in ["maeSeconds", "p90AbsSeconds", "within3min", "biasSeconds"] {
            #expect(estimators["clup"]?[key] is Double, "\(key)")
        }
        let store = try #require(summary["store"] as? [String: Any])
        #expect(store["noShows"] is Int && store["lateArrivals"] is Int && store["meanPeopleAtDoor"] is Double)
        let csv = try String(contentsOfFile: directory.appendingPathComponent("t.csv").path, encoding: .utf8)
        #expect(csv.hasPrefix("joined,kind,ahead,waited_s,clup_s"))

        let broken = directory.appendingPathComponent("broken.toml").path
        try Self.scenario.replacingOccurrences(of: "no_show = 0.08", with: "no_show = 8")
            .write(toFile: broken, atomically: true, encoding: .utf8)
        let (refused, message) = try Self.run([broken])
        #expect(refused == 65)
        #expect(message.contains("arrivals.no_show") && message.contains("between 0 and 1"), "\(message)")
    }

    static func run(_ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Programs.besideThisProgram("clup-sim"))
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
