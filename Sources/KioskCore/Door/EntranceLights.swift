/// What the entrance's light and gate show for a decision (issue "the entrance without staff"): green and the
/// gate for "come in", and for a refusal red in a blink of its own — slow for "not your turn yet" (wait a little),
/// doubled for "store full" (wait for someone to leave), steady for a ticket that will never open the door (take
/// a new one or ask) — so the three read apart at a glance, and by someone who sees only the light.
public enum EntranceSignal: Sendable, Equatable {
    case comeIn
    case notYet
    case full
    case invalid

    public init(_ decision: AdmissionDecision) {
        switch decision {
        case .admit: self = .comeIn
        case .notYourTurn, .tooEarly, .closed, .paused: self = .notYet
        case .storeFull: self = .full
        case .alreadyUsed, .expired, .previousDay, .cancelled, .tooLate, .wrongStore, .forged, .unreadable,
            .unknownTicket, .notRecorded:
            self = .invalid
        }
    }
}

/// Drives the entrance's output lines (green, red, the gate's relay) from the door's decisions: each decision
/// starts its signal's pattern at once and replaces whatever was showing. The driver only sets lines; this
/// decides which and when. Times are "elapsed since some start", so tests drive it without a clock.
public struct EntranceLightsMachine: Sendable, Equatable {
    public enum Line: String, Sendable, Equatable, CaseIterable {
        case green, red, gate
    }

    public enum Input: Sendable, Equatable {
        case show(EntranceSignal, at: Duration)
        case tick(at: Duration)
    }

    public enum Action: Sendable, Equatable {
        case set(Line, on: Bool)
        /// Call again with `.tick` at this time.
        case wake(at: Duration)
    }

    /// One step of a pattern: these lines on (the others off) for `length`.
    struct Step: Sendable, Equatable {
        var on: Set<Line>
        var length: Duration
    }

    public let greenHold: Duration
    public let gatePulse: Duration
    /// Lines on now, as last set.
    public private(set) var on: Set<Line> = []
    /// The pattern showing and when it started.
    private(set) var pattern: [Step] = []
    private(set) var startedAt: Duration = .zero

    public init(greenHold: Duration = .seconds(5), gatePulse: Duration = .milliseconds(500)) {
        self.greenHold = greenHold
        self.gatePulse = min(gatePulse, greenHold)
    }

    /// The steps of `signal`'s pattern.
    func steps(_ signal: EntranceSignal) -> [Step] {
        let blink = Duration.milliseconds(250)
        switch signal {
        case .comeIn:
            return [Step(on: [.green, .gate], length: gatePulse), Step(on: [.green], length: greenHold - gatePulse)]
        case .notYet:  // slow: on a second, off half, three times
            return Array(
                repeating: [Step(on: [.red], length: .seconds(1)), Step(on: [], length: .milliseconds(500))],
                count: 3
            )
            .flatMap { $0 }
        case .full:  // two quick blinks, a pause, three times
            let pair = [
                Step(on: [.red], length: blink), Step(on: [], length: blink), Step(on: [.red], length: blink),
                Step(on: [], length: .milliseconds(750)),
            ]
            return Array(repeating: pair, count: 3).flatMap { $0 }
        case .invalid:  // steady
            return [Step(on: [.red], length: .seconds(3))]
        }
    }

    public mutating func handle(_ input: Input) -> [Action] {
        switch input {
        case .show(let signal, let at):
            pattern = steps(signal)
            startedAt = at
            return evaluate(at: at)
        case .tick(let at):
            return evaluate(at: at)
        }
    }

    private mutating func evaluate(at now: Duration) -> [Action] {
        var end = startedAt
        var wanted: Set<Line> = []
        var wake: Duration?
        for step in pattern {
            end += step.length
            if now < end {
                wanted = step.on
                wake = end
                break
            }
        }
        if wake == nil { pattern = [] }
        var actions: [Action] = []
        // Off before on: a change from red to green never shows both.
        for line in Line.allCases where on.contains(line) && !wanted.contains(line) {
            actions.append(.set(line, on: false))
        }
        for line in Line.allCases where wanted.contains(line) && !on.contains(line) {
            actions.append(.set(line, on: true))
        }
        on = wanted
        if let wake { actions.append(.wake(at: wake)) }
        return actions
    }
}
