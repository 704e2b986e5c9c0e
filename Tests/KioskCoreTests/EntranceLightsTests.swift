import TestSupport
import Testing

@testable import KioskCore

/// The entrance's light and gate: green and a gate pulse for "come in", a red blink of its own for each kind of
/// refusal, a new decision replacing the old at once, and never red and green together.
@Suite struct EntranceLightsTests {
    typealias Line = EntranceLightsMachine.Line

    /// Shows `signals` (signal, ms) in order, ticking at each wake until `until` ms; the line changes with their
    /// times in ms.
    static func run(
        _ machine: inout EntranceLightsMachine,
        _ signals: [(EntranceSignal, Int)],
        until: Int
    ) -> [(Line, Bool, Int)] {
        var out: [(Line, Bool, Int)] = []
        var wake: Duration?
        func take(_ actions: [EntranceLightsMachine.Action], at ms: Int) {
            wake = nil
            for action in actions {
                switch action {
                case .set(let line, let on): out.append((line, on, ms))
                case .wake(let at): wake = at
                }
            }
        }
        for (signal, ms) in signals + [(.invalid, Int.max)] {
            while let due = wake, due <= .milliseconds(min(ms, until)) {
                take(machine.handle(.tick(at: due)), at: Int(due / .milliseconds(1)))
            }
            guard ms <= until else { break }
            take(machine.handle(.show(signal, at: .milliseconds(ms))), at: ms)
        }
        return out
    }

    @Test func decisionsReadAsFourSignals() {
        #expect(EntranceSignal(.admit(TicketCode(prefix: "A", number: 1))) == .comeIn)
        #expect(EntranceSignal(.notYourTurn(ahead: 3)) == .notYet)
        #expect(EntranceSignal(.closed(opensAt: nil, ahead: 2)) == .notYet)
        #expect(EntranceSignal(.storeFull(inside: 5, capacity: 5)) == .full)
        #expect(EntranceSignal(.previousDay) == .invalid && EntranceSignal(.forged) == .invalid)
    }

    @Test func comeInIsGreenWithAGatePulse() {
        var machine = EntranceLightsMachine(greenHold: .seconds(5), gatePulse: .milliseconds(500))
        let changes = Self.run(&machine, [(.comeIn, 1_000)], until: 10_000)
        #expect(
            changes.map { "\($0.0)\($0.1 ? "+" : "-")@\($0.2)" } == [
                "green+@1000", "gate+@1000", "gate-@1500", "green-@6000",
            ]
        )
    }

    /// Each refusal has its own rhythm: what someone who sees only the light tells apart.
    @Test func theThreeRefusalsBlinkApart() {
        func rhythm(_ signal: EntranceSignal) -> [Int] {
            var machine = EntranceLightsMachine()
            let changes = Self.run(&machine, [(signal, 0)], until: 10_000)
            #expect(changes.allSatisfy { $0.0 == .red }, "\(signal) lit another line")
            return changes.map(\.2)
        }
        let notYet = rhythm(.notYet)
        let full = rhythm(.full)
        let invalid = rhythm(.invalid)
        #expect(notYet == [0, 1_000, 1_500, 2_500, 3_000, 4_000])
        #expect(full.count == 12 && full.prefix(4) == [0, 250, 500, 750])
        #expect(invalid == [0, 3_000])
    }

    /// Decisions at random moments, one cutting another short: red and green are never on together, each
    /// decision shows at once, and after the last pattern every line is off.
    @Test(arguments: 0..<20) func aBusyEntranceNeverShowsRedAndGreenTogether(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var machine = EntranceLightsMachine()
        var signals: [(EntranceSignal, Int)] = []
        var at = 0
        for _ in 0..<300 {
            at += Int.random(in: 1...4_000, using: &random)
            signals.append(([.comeIn, .notYet, .full, .invalid].randomElement(using: &random)!, at))
        }
        let changes = Self.run(&machine, signals, until: at + 20_000)
        var on: Set<Line> = []
        for (line, lit, ms) in changes {
            if lit { on.insert(line) } else { on.remove(line) }
            #expect(!(on.contains(.red) && on.contains(.green)), "red and green at \(ms) ms")
        }
        #expect(on.isEmpty && machine.on.isEmpty)
        // Each decision lights its colour in the same step it is shown.
        for (signal, ms) in signals {
            let colour: Line = signal == .comeIn ? .green : .red
            let lit = changes.contains { $0.0 == colour && $0.1 && $0.2 == ms }
            let alreadyLit = changes.last { $0.0 == colour && $0.2 < ms }.map { $0.1 } ?? false
            #expect(lit || alreadyLit, "\(signal) at \(ms) ms did not light \(colour)")
        }
    }
}
