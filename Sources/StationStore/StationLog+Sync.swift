import Foundation
import KioskCore

/// What sync stores: it makes no events, it keeps what clup-server said of this station's and the store's.
/// Each write goes to the local log first and then to the replica, so that the two never disagree.
extension StationLog {
    /// Records the sequences the server gave to pushed events.
    public func confirm(_ sequences: [(id: EventID, sequence: Int64)]) throws {
        try store.confirm(sequences)
    }

    /// Stores a page of the server's log (in sequence order) and how far it goes, then folds it into the
    /// replica; the events this station did not have.
    @discardableResult
    public func storePulled(_ events: [StoreEvent], through last: Int64) throws -> [StoreEvent] {
        let new = try store.storePulled(events, through: last)
        queue.applyPulled(events)
        return new
    }

    /// Moves the outbox's event `id`, refused for good, into the quarantine and refolds the replica without it;
    /// false when it is not in the outbox (confirmed since).
    @discardableResult
    public func quarantine(_ id: EventID, reason: String, at now: Timestamp) throws -> Bool {
        guard try store.quarantine(id, reason: reason, at: now) else { return false }
        queue.drop(id)
        return true
    }

    /// Keeps the replica's fold of the server's log through `sequence`, so that the next start folds only what
    /// was pulled after it (``LocalStore/keptConfirmedFold(capacity:)``).
    public func keepConfirmedFold(through sequence: Int64, capacity: Int) throws {
        let snapshot = queue.confirmedSnapshot.snapshot
        try store.keepConfirmedFold(try JSONEncoder().encode(snapshot), through: sequence, capacity: capacity)
    }

    /// Records how far a ticket got on paper: `.sending` durably before its bytes go out, `.printed` once
    /// confirmed, `.notSent` again when a fault interrupted it.
    public func mark(_ id: TicketID, _ state: TicketPrintState) throws {
        try store.mark(id, state)
    }
}
