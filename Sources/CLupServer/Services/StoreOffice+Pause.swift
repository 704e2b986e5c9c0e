import KioskCore

/// A store's manager pauses and resumes the calls (``LinePause``), through the API or the console: each is an
/// event of the store's log, so every kiosk's door and display follow it at their next sync.
extension StoreOffice {
    /// The calls after a pause or resume: the pause that holds now, if one does, and how many wait.
    struct Calls: Encodable, Sendable {
        var paused: Bool
        var pause: LinePause?
        var waiting: Int
    }

    /// Pauses the calls for `reason`, for `minutes` (nil: until resumed).
    func pause(_ store: StoreID, reason: String, minutes: Int?, by manager: String) async throws -> Calls {
        if let minutes, !LinePause.minutes.contains(minutes) {
            throw Refusal.invalid(
                "minutes: \(LinePause.minutes.lowerBound)–\(LinePause.minutes.upperBound), or none (until resumed)",
                field: "minutes"
            )
        }
        let now = database.clock.now()
        let body = StoreEvent.Body.linePaused(
            reason: reason,
            until: LinePause.until(minutes: minutes, from: now),
            by: manager
        )
        return try await record(body, store: store, at: now)
    }

    /// Resumes the calls; nothing is written while none are paused.
    func resume(_ store: StoreID, by manager: String) async throws -> Calls {
        let now = database.clock.now()
        guard try await logs.require(store).state.isPaused(at: now) else { return try await calls(store, at: now) }
        return try await record(.lineResumed(by: manager), store: store, at: now)
    }

    private func record(_ body: StoreEvent.Body, store: StoreID, at now: Timestamp) async throws -> Calls {
        _ = try await logs.require(store)
        if let problem = LinePause.problem(body, at: now) {
            throw Refusal.invalid(problem.message, field: problem.field)
        }
        if let kind = body.known { try await fleet.requireNoneFreezes(on: kind, store: store) }
        try await logs.recordStaff(body, store: store, at: now)
        return try await calls(store, at: now)
    }

    private func calls(_ store: StoreID, at now: Timestamp) async throws -> Calls {
        let state = try await logs.require(store).state
        let pause = state.pauses.holding(at: now)
        return Calls(paused: pause != nil, pause: pause, waiting: state.waitingCount)
    }
}
