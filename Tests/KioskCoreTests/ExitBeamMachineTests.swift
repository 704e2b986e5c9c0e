import TestSupport
import Testing

@testable import KioskCore

/// The exit beams: one person out per break of an exit-only door's beam; with two beams the order tells leaving
/// from walking in; flickers, a doorway blocked by a trolley and people a step apart are what a day brings.
@Suite struct ExitBeamMachineTests {
    typealias Beam = ExitBeamMachine.Beam

    /// Feeds `edges` (beam, blocked, milliseconds) in time order, ticking at every wake the machine asks for
    /// until `until` ms; every action but the wakes, with its time.
    static func run(
        _ machine: inout ExitBeamMachine,
        _ edges: [(Beam, Bool, Int)],
        until: Int
    ) -> [(ExitBeamMachine.Action, Int)] {
        var out: [(ExitBeamMachine.Action, Int)] = []
        var wake: Duration?
        func take(_ actions: [ExitBeamMachine.Action], at ms: Int) {
            wake = nil
            for action in actions {
                if case .wake(let at) = action { wake = at } else { out.append((action, ms)) }
            }
        }
        for (beam, blocked, ms) in edges.sorted(by: { $0.2 < $1.2 }) + [(.inner, false, Int.max)] {
            while let due = wake, due <= .milliseconds(min(ms, until)) {
                let at = Int(due.components.seconds * 1000 + due.components.attoseconds / 1_000_000_000_000_000)
                take(machine.handle(.tick(at: due)), at: at)
            }
            guard ms <= until else { break }
            take(machine.handle(.edge(beam, blocked: blocked, at: .milliseconds(ms))), at: ms)
        }
        return out
    }

    static func exits(_ actions: [(ExitBeamMachine.Action, Int)]) -> Int {
        actions.filter { $0.0 == .exited }.count
    }

    @Test func eachBreakOfAnExitOnlyBeamIsOnePersonAndAFlickerIsNone() {
        var machine = ExitBeamMachine(twoBeams: false)
        let actions = Self.run(
            &machine,
            [
                (.inner, true, 1_000), (.inner, false, 1_400),  // a person
                (.inner, true, 2_000), (.inner, false, 2_010),  // a flicker: 10 ms
                (.inner, true, 3_000), (.inner, false, 3_300),  // another person
            ],
            until: 10_000
        )
        #expect(actions.map(\.0) == [.exited, .exited])
        // Counted once the break held for the debounce: 20 ms after it began.
        #expect(actions.map(\.1) == [1_020, 3_020])
    }

    @Test func innerThenOuterLeavesOuterThenInnerWalksIn() {
        var machine = ExitBeamMachine(twoBeams: true)
        let leaving = Self.run(
            &machine,
            [(.inner, true, 0), (.outer, true, 300), (.inner, false, 500), (.outer, false, 800)],
            until: 5_000
        )
        #expect(leaving.map(\.0) == [.exited])
        let entering = Self.run(
            &machine,
            [(.outer, true, 6_000), (.inner, true, 6_300), (.outer, false, 6_500), (.inner, false, 6_800)],
            until: 10_000
        )
        #expect(entering.map(\.0) == [.walkedIn])
    }

    /// Someone steps into the inner beam and turns back: no exit, and a break of the outer beam long after
    /// (a passer-by outside) is not matched with it.
    @Test func aTurnBackIsNoExit() {
        var machine = ExitBeamMachine(twoBeams: true)
        let actions = Self.run(
            &machine,
            [(.inner, true, 0), (.inner, false, 600), (.outer, true, 5_000), (.outer, false, 5_300)],
            until: 9_000
        )
        #expect(Self.exits(actions) == 0)
    }

    /// A trolley left in the doorway: one break, reported once as blocked and once as clear, never hundreds of
    /// people however long it stands there or however its edge chatters.
    @Test func aBlockedBeamIsReportedNotCountedAgain() {
        var machine = ExitBeamMachine(twoBeams: false)
        var edges: [(Beam, Bool, Int)] = [(.inner, true, 1_000)]
        for ms in stride(from: 2_000, to: 60_000, by: 700) { edges += [(.inner, false, ms), (.inner, true, ms + 5)] }
        edges.append((.inner, false, 61_000))
        let actions = Self.run(&machine, edges, until: 70_000)
        #expect(actions.map(\.0) == [.exited, .blocked(.inner), .cleared(.inner)])
        #expect(actions[1].1 == 11_000)  // blockedLimit after the break began
    }

    /// People leaving at random moments, each a step behind the one before (each beam clears between them),
    /// with flickers shorter than the debounce on both beams and someone walking in now and then: every one
    /// who left is counted, and only they.
    @Test(arguments: 0..<30) func aDayOfPeopleLeavingAStepApart(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var machine = ExitBeamMachine(twoBeams: true)
        var edges: [(Beam, Bool, Int)] = []
        var at = 0
        var leaving = 0
        var walkingIn = 0
        for _ in 0..<200 {
            at += Int.random(in: 450...20_000, using: &random)
            // A body blocks a beam for 150–400 ms; the second beam breaks 80–250 ms after the first.
            let (first, second): (Beam, Beam) =
                Int.random(in: 0..<10, using: &random) == 0 ? (.outer, .inner) : (.inner, .outer)
            if first == .inner { leaving += 1 } else { walkingIn += 1 }
            let hold = Int.random(in: 150...400, using: &random)
            let lag = Int.random(in: 80...250, using: &random)
            edges += [
                (first, true, at), (first, false, at + hold), (second, true, at + lag),
                (second, false, at + lag + hold),
            ]
            if Bool.random(using: &random) {
                let beam: Beam = Bool.random(using: &random) ? .inner : .outer
                let flicker = at + hold + lag + Int.random(in: 60...200, using: &random)
                edges += [(beam, true, flicker), (beam, false, flicker + Int.random(in: 1...15, using: &random))]
                at = flicker + 20
            }
            at += hold + lag
        }
        let actions = Self.run(&machine, edges, until: at + 30_000)
        #expect(Self.exits(actions) == leaving)
        #expect(actions.filter { $0.0 == .walkedIn }.count == walkingIn)
        #expect(!actions.contains { if case .blocked = $0.0 { true } else { false } })
    }

    /// Two people close behind each other: the second breaks the inner beam before the first has reached the
    /// outer one. Matched in order, both count.
    @Test func twoPeopleCloseTogetherCountAsTwo() {
        var machine = ExitBeamMachine(twoBeams: true)
        let actions = Self.run(
            &machine,
            [
                (.inner, true, 0), (.inner, false, 250),
                (.inner, true, 300), (.inner, false, 550),
                (.outer, true, 400), (.outer, false, 650),
                (.outer, true, 700), (.outer, false, 950),
            ],
            until: 5_000
        )
        #expect(actions.map(\.0) == [.exited, .exited])
    }
}
