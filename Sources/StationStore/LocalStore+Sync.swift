import Foundation
import GRDB
import KioskCore

/// The station's side of sync: its own events not yet confirmed by clup-server are the outbox (no sequence);
/// events pulled from the server carry the sequence the server gave them, and `last_pulled` is how far the
/// station has read the store's log.
extension LocalStore {
    /// The oldest unconfirmed events, in the order they were written here.
    public func outbox(limit: Int) throws -> [StoreEvent] {
        try db.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM events WHERE sequence IS NULL ORDER BY local_order LIMIT ?",
                arguments: [limit]
            ).map(Self.event)
        }
    }

    public func outboxCount() throws -> Int {
        try db.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM events WHERE sequence IS NULL") ?? 0 }
    }

    /// Records the sequences the server gave to pushed events.
    func confirm(_ sequences: [(id: EventID, sequence: Int64)]) throws {
        try db.write { db in
            let update = try db.cachedStatement(sql: "UPDATE events SET sequence = ? WHERE id = ?")
            for (id, sequence) in sequences { try update.execute(arguments: [sequence, id.uuidString]) }
        }
    }

    /// Stores a page of the server's log (in sequence order) and how far it goes; returns the events this
    /// station did not have (its own come back with their sequence and are only confirmed).
    @_spi(Seeding) public func storePulled(_ events: [StoreEvent], through last: Int64) throws -> [StoreEvent] {
        try db.write { db in
            var new: [StoreEvent] = []
            // The server's copy wins: an event several devices write with one id (a day's start) keeps the
            // time and device of the copy the server appended first, here as on every other station, and an
            // event of this station's that reached the server late keeps when it arrived.
            let confirm = try db.cachedStatement(
                sql: "UPDATE events SET sequence = ?, device = ?, time = ?, body = ?, received_at = ? WHERE id = ?"
            )
            for event in events {
                try insert(event, db)
                if db.changesCount == 1 {
                    new.append(event)
                } else {
                    try confirm.execute(
                        arguments: [
                            event.sequence, event.device, event.time.milliseconds,
                            try Self.encoder.encode(event.storedBody),
                            event.receivedAt?.milliseconds, event.id.uuidString,
                        ]
                    )
                }
            }
            try db.execute(
                sql: "UPDATE sync_state SET last_pulled = max(last_pulled, ?) WHERE id = 1",
                arguments: [last]
            )
            return new
        }
    }

    public func lastPulled() throws -> Int64 {
        try db.read { try Int64.fetchOne($0, sql: "SELECT last_pulled FROM sync_state WHERE id = 1") ?? 0 }
    }

    /// The time of the last event `device` wrote here: a time the kiosk's clock has been past (``ClockWatch``).
    /// Read backwards along the log's local order, which its own events follow as they are written: a start
    /// reads a few rows, not every event the kiosk ever kept (a MAX over `time` has no index to use).
    public func lastEventTime(of device: DeviceID) throws -> Timestamp? {
        try db.read {
            try Int64.fetchOne(
                $0,
                sql: "SELECT time FROM events WHERE device = ? ORDER BY local_order DESC LIMIT 1",
                arguments: [device]
            )
        }.map { Timestamp(milliseconds: $0) }
    }

    public func keyRegistered() throws -> Bool {
        try db.read { try Bool.fetchOne($0, sql: "SELECT key_registered FROM sync_state WHERE id = 1") ?? false }
    }

    public func setKeyRegistered() throws {
        try db.write { try $0.execute(sql: "UPDATE sync_state SET key_registered = 1 WHERE id = 1") }
    }

    /// The log as the queue replica folds it: events read from the server, in the server's order (after
    /// `kept`, the sequence of the kept fold it starts from), then this station's events the server has not
    /// sent back yet, in the order they were written. Refused scans change no state and are left out.
    public func replicaEvents(after kept: Int64 = 0) throws -> (confirmed: [StoreEvent], pending: [StoreEvent]) {
        try db.read { db in
            let last = try Int64.fetchOne(db, sql: "SELECT last_pulled FROM sync_state WHERE id = 1") ?? 0
            let confirmed = try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM events WHERE sequence IS NOT NULL AND sequence > ? AND sequence <= ?
                        AND kind != 'scanRefused'
                    ORDER BY sequence
                    """,
                arguments: [kept, last]
            ).map(Self.event)
            // Two look-ups, each by its index (the outbox's, the sequence's), merged in local order: one query
            // with `OR` read the whole table.
            let unsent = try Row.fetchAll(
                db,
                sql: "SELECT * FROM events WHERE sequence IS NULL AND kind != 'scanRefused' ORDER BY local_order"
            )
            let ahead = try Row.fetchAll(
                db,
                sql: "SELECT * FROM events WHERE sequence > ? AND kind != 'scanRefused'",
                arguments: [last]
            )
            let pending = try (unsent + ahead).sorted { ($0["local_order"] as Int64) < ($1["local_order"] as Int64) }
                .map(Self.event)
            return (confirmed, pending)
        }
    }

    /// The store's time zone as clup-server last gave it (nil before the first sync).
    public func serverTimeZone() throws -> String? {
        try db.read { try String.fetchOne($0, sql: "SELECT time_zone FROM sync_state WHERE id = 1") }
    }

    public func setServerTimeZone(_ name: String) throws {
        try db.write { try $0.execute(sql: "UPDATE sync_state SET time_zone = ? WHERE id = 1", arguments: [name]) }
    }

    /// The store's weekly hours as clup-server last gave them (JSON, ``StoreHours``; nil before the first sync).
    public func serverHours() throws -> String? {
        try db.read { try String.fetchOne($0, sql: "SELECT hours FROM sync_state WHERE id = 1") }
    }

    public func setServerHours(_ json: String) throws {
        try db.write { try $0.execute(sql: "UPDATE sync_state SET hours = ? WHERE id = 1", arguments: [json]) }
    }

    /// The store's settings as clup-server last gave them (JSON, ``StoreSettings``; nil before the first sync).
    public func serverSettings() throws -> String? {
        try db.read { try String.fetchOne($0, sql: "SELECT settings FROM sync_state WHERE id = 1") }
    }

    public func setServerSettings(_ json: String) throws {
        try db.write { try $0.execute(sql: "UPDATE sync_state SET settings = ? WHERE id = 1", arguments: [json]) }
    }

    /// The store's wait model as clup-server last gave it (JSON, ``WaitModel``; nil before the first sync).
    public func serverWaitModel() throws -> String? {
        try db.read { try String.fetchOne($0, sql: "SELECT wait_model FROM sync_state WHERE id = 1") }
    }

    public func setServerWaitModel(_ json: String) throws {
        try db.write { try $0.execute(sql: "UPDATE sync_state SET wait_model = ? WHERE id = 1", arguments: [json]) }
    }

    /// Keeps the fold of the server's log through `sequence` (``QueueState/Snapshot``, JSON), made with the
    /// configured `capacity`, so that the next start folds only what was pulled after it.
    @_spi(Seeding) public func keepConfirmedFold(_ data: Data, through sequence: Int64, capacity: Int) throws {
        try db.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO kept_fold (id, sequence, capacity, data) VALUES (1, ?, ?, ?)",
                arguments: [sequence, capacity, data]
            )
        }
    }

    /// The kept fold, if one was kept with this `capacity` configured (else the log is folded again).
    public func keptConfirmedFold(capacity: Int) throws -> (sequence: Int64, data: Data)? {
        try db.read { db in
            try Row.fetchOne(db, sql: "SELECT sequence, capacity, data FROM kept_fold WHERE id = 1")
                .flatMap { row in (row["capacity"] as Int) == capacity ? (row["sequence"], row["data"]) : nil }
        }
    }
}
