import Logging

extension LeaseDuty {
    /// Keeps every store's live state in the database (``StoreQueues/keepSnapshots()``) every `interval`, and once
    /// more when the server stops — once for the fleet: the replica holding the duties' lease writes them, every
    /// replica starts from them. A start then folds at most an interval of events per store, whatever its history.
    static func snapshotKeeper(_ logs: StoreQueues, lease: DutyLease, interval: Duration, logger: Logger) -> LeaseDuty {
        LeaseDuty(
            lease: lease,
            interval: interval,
            firstAfterInterval: true,
            atStop: true,
            failure: "cannot keep the stores' live state: the next start reads more of their logs",
            logger: logger
        ) {
            let count = try await logs.keepSnapshots()
            if count > 0 { logger.debug("kept the live state of \(count) stores") }
        }
    }
}
