import Logging

extension LeaseDuty {
    /// Relearns every store's wait model from its own log (``WaitModel``, R12) every 30 minutes — once for the
    /// fleet: the replica holding the duties' lease learns the models and keeps them in the database, the others
    /// read them when told (``LogFollower``) and at their start (``StoreQueues/loadModels()``). A replica that takes
    /// the lease over learns them at once.
    static func modelRefresh(_ logs: StoreQueues, lease: DutyLease, logger: Logger) -> LeaseDuty {
        LeaseDuty(
            lease: lease,
            interval: .seconds(30 * 60),
            failure: "cannot refresh the wait estimates: the stores keep the models they have",
            logger: logger
        ) { try await logs.refreshModels(at: logs.clock.now()) }
    }
}
