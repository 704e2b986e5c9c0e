/// Counts people leaving through an exit watched by light beams (R9 without staff). The driver only reports
/// edges; this decides.
///
/// With one beam (an exit-only door) each break is one person out. With two — `inner` on the store's side,
/// `outer` on the street's — the order tells the direction: an inner break followed within ``passLimit`` by an
/// outer one is a person leaving; an outer break followed by an inner one is someone walking in through the exit,
/// reported and not counted. Breaks are matched in order, so two people a step apart (each beam clears between
/// them) count as two; people so close that neither beam clears between them count as one, which two beams cannot
/// tell apart.
///
/// A beam must stay blocked or clear for ``debounce`` before a change counts (a swinging bag, a flicker). A beam
/// blocked for longer than ``blockedLimit`` (a trolley left in the doorway) is reported once and counts at most
/// the one person its break began with; its clearing is reported too. Times are "elapsed since some start", so
/// tests drive it without a clock.
public struct ExitBeamMachine: Sendable, Equatable {
    public enum Beam: String, Sendable, Equatable, CaseIterable {
        case inner, outer
    }

    public enum Input: Sendable, Equatable {
        /// The beam's line changed: now blocked, or clear again.
        case edge(Beam, blocked: Bool, at: Duration)
        case tick(at: Duration)
    }

    public enum Action: Sendable, Equatable {
        /// One person left the store.
        case exited
        /// Someone came in through the exit (outer beam, then inner): not counted.
        case walkedIn
        /// The beam has been blocked for ``blockedLimit``: something stands in the doorway.
        case blocked(Beam)
        /// A beam reported blocked is clear again.
        case cleared(Beam)
        /// Call again with `.tick` at this time (a debounce or a block is being timed).
        case wake(at: Duration)
    }

    /// A change seen but not yet held for the debounce: the new value, since when.
    struct Change: Sendable, Equatable {
        var blocked: Bool
        var since: Duration
    }

    /// One beam's debounced state.
    struct Line: Sendable, Equatable {
        var blocked = false
        var pending: Change?
        /// When the current break began (while blocked).
        var brokeAt: Duration?
        var reportedBlocked = false
    }

    struct Lines: Sendable, Equatable {
        var inner = Line()
        var outer = Line()

        subscript(beam: Beam) -> Line {
            get { beam == .inner ? inner : outer }
            set { if beam == .inner { inner = newValue } else { outer = newValue } }
        }
    }

    /// A break that began and waits for the other beam's.
    struct Break: Sendable, Equatable {
        var beam: Beam
        var at: Duration
    }

    public let twoBeams: Bool
    public let debounce: Duration
    public let passLimit: Duration
    public let blockedLimit: Duration
    private(set) var lines = Lines()
    /// Breaks that wait for the other beam's (two beams), oldest first.
    private(set) var unmatched: [Break] = []

    public init(
        twoBeams: Bool,
        debounce: Duration = .milliseconds(20),
        passLimit: Duration = .seconds(3),
        blockedLimit: Duration = .seconds(10)
    ) {
        self.twoBeams = twoBeams
        self.debounce = debounce
        self.passLimit = passLimit
        self.blockedLimit = blockedLimit
    }

    /// Whether `beam` is blocked now (debounced).
    public func isBlocked(_ beam: Beam) -> Bool { lines[beam].blocked }

    public mutating func handle(_ input: Input) -> [Action] {
        switch input {
        case .edge(let beam, let blocked, let at):
            // An exit-only door has its beam on the inner line; an outer edge there is a wiring fault, ignored.
            guard twoBeams || beam == .inner else { return [] }
            var line = lines[beam]
            if blocked == line.blocked {
                line.pending = nil  // a flicker that came back before the debounce
            } else if line.pending?.blocked != blocked {
                line.pending = Change(blocked: blocked, since: at)
            }
            lines[beam] = line
            return evaluate(at: at)
        case .tick(let at):
            return evaluate(at: at)
        }
    }

    private mutating func evaluate(at now: Duration) -> [Action] {
        var actions: [Action] = []
        var wake: Duration?
        func wakeAt(_ time: Duration) { wake = min(wake ?? time, time) }
        // Changes held long enough, in the order they happened (the direction depends on it).
        let settled = Beam.allCases.compactMap { beam -> (Beam, Bool, Duration)? in
            guard let pending = lines[beam].pending else { return nil }
            let due = pending.since + debounce
            guard now >= due else {
                wakeAt(due)
                return nil
            }
            return (beam, pending.blocked, pending.since)
        }.sorted { $0.2 < $1.2 }
        for (beam, blocked, since) in settled {
            lines[beam].pending = nil
            lines[beam].blocked = blocked
            if blocked {
                lines[beam].brokeAt = since
                actions += broke(beam, at: since)
            } else {
                lines[beam].brokeAt = nil
                if lines[beam].reportedBlocked {
                    lines[beam].reportedBlocked = false
                    actions.append(.cleared(beam))
                }
            }
        }
        for beam in Beam.allCases {
            guard let brokeAt = lines[beam].brokeAt, !lines[beam].reportedBlocked else { continue }
            if now >= brokeAt + blockedLimit {
                lines[beam].reportedBlocked = true
                actions.append(.blocked(beam))
            } else {
                wakeAt(brokeAt + blockedLimit)
            }
        }
        if let wake { actions.append(.wake(at: wake)) }
        return actions
    }

    /// A break of `beam` began at `at`: one person out (one beam), or matched with the other beam's break.
    private mutating func broke(_ beam: Beam, at: Duration) -> [Action] {
        guard twoBeams else { return [.exited] }
        unmatched.removeAll { at - $0.at > passLimit }
        if let other = unmatched.firstIndex(where: { $0.beam != beam }) {
            unmatched.remove(at: other)
            return [beam == .outer ? .exited : .walkedIn]
        }
        unmatched.append(Break(beam: beam, at: at))
        return []
    }
}
