import KioskCore

extension StoreQueues {
    /// Stores a store's changed profile and, when its capacity changed, the `capacityChanged` event, in one
    /// transaction; then applies both.
    public func change(_ profile: StoreProfile, store: StoreID, at now: Timestamp) async throws {
        let live = try await require(store)
        let capacity = StoreEvent.Body.capacityChanged(profile.capacity)
        let events =
            profile.capacity == live.state.capacity
            ? [] : [StoreEvent.new(capacity, store: store, device: ServerIssue.device, at: now)]
        let results = try await database.setProfile(profile, store: store, appending: events) { [self] added in
            applyCommitted(added, store: store)
        }
        setProfile(profile, store: store)
        try await counted(results, store: store)
    }

    /// A store's changed profile, once stored (here or by another replica).
    func setProfile(_ profile: StoreProfile, store: StoreID) {
        live.withLock { $0[store]?.set(profile: profile) }
    }
}
