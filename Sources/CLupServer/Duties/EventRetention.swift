import Logging

/// Storage limitation (GDPR Art. 5(1)(e)): how long raw events are kept.
enum EventRetention {
    /// The shortest retention: the 366 days a report reaches back, and one more.
    static let fewestDays = 367
}

extension LeaseDuty {
    /// Removes raw events older than `days`, every 6 hours, on the replica holding the duties' lease, once the
    /// stores' kept live state covers them (``snapshotKeeper(_:lease:interval:logger:)``; the wait model learns
    /// from its own counts, which the snapshot keeps). A day's figures and its CSV come from the events, so `days`
    /// is at least a year and a day (``EventRetention/fewestDays``): the console and the report reach 366 days back.
    static func eventRetention(_ logs: StoreQueues, days: Int, lease: DutyLease, logger: Logger) -> LeaseDuty {
        LeaseDuty(
            lease: lease,
            interval: .seconds(6 * 3600),
            failure: "cannot remove events older than \(days) days: the database keeps them until the next try",
            logger: logger
        ) {
            let count = try await logs.removeEvents(olderThan: days, at: logs.clock.now())
            if count > 0 { logger.info("removed \(count) events older than \(days) days") }
        }
    }
}

/// Which holder took a ticket is kept while it can matter: the booking horizon (a booking is live until its
/// slot) and two days more. Then the row goes, and a phone's holder token no longer links its visits.
enum HolderRetention {
    static func days(bookingHorizonDays: Int) -> Int { bookingHorizonDays + 2 }
}

extension LeaseDuty {
    /// Removes the holders of tickets issued more than `days` ago, every hour, on the replica holding the lease.
    static func holderRetention(_ logs: StoreQueues, days: Int, lease: DutyLease, logger: Logger) -> LeaseDuty {
        LeaseDuty(
            lease: lease,
            interval: .seconds(3600),
            failure: "cannot remove ticket holders older than \(days) days: the database keeps them until the next try",
            logger: logger
        ) {
            let count = try await logs.removeHolders(olderThan: days, at: logs.clock.now())
            if count > 0 { logger.info("forgot the holders of \(count) tickets older than \(days) days") }
        }
    }
}
