import KioskCore

/// What a store's manager says of the people inside (``StaffCount``), through the API or the console: the count
/// as staff counted it, and people let in without a ticket. Each is an event of the store's log, so every
/// kiosk's door counts from it at its next sync.
extension StoreOffice {
    /// The count after a staff event: inside against capacity, and the day's latest correction.
    struct Count: Encodable, Sendable {
        var inside: Int
        var capacity: Int
        var correction: CountCorrection?
    }

    func correctCount(_ store: StoreID, to inside: Int, by manager: String) async throws -> Count {
        try await record(.countCorrected(inside: inside, by: manager), store: store)
    }

    func letIn(_ store: StoreID, people: Int, reason: String, by manager: String) async throws -> Count {
        try await record(.letIn(people: people, reason: reason, by: manager), store: store)
    }

    private func record(_ body: StoreEvent.Body, store: StoreID) async throws -> Count {
        _ = try await logs.require(store)
        if let problem = StaffCount.problem(body) { throw Refusal.invalid(problem.message, field: problem.field) }
        if let kind = body.known { try await fleet.requireNoneFreezes(on: kind, store: store) }
        try await logs.recordStaff(body, store: store, at: database.clock.now())
        let state = try await logs.require(store).state
        return Count(inside: state.inside, capacity: state.capacity, correction: state.correction)
    }
}
