import KioskCore
import Synchronization

/// Events are accepted late (a kiosk cut off for an hour pushes its hour when it is back), but not at the
/// time they claim: an event that arrives more than `lateAfter` after it happened is stamped with its arrival
/// (``StoreEvent/receivedAt``), and its ticket joins the line then, behind everyone already waiting. Neither
/// an outage, nor a kiosk's clock, nor a credential misused to backdate puts tickets ahead of customers who
/// were in line first.
///
/// A kiosk's own order is kept: once one of its events is stamped, its events that happened before that
/// stamp are stamped too (the rest of an outage's backlog, in the same push or the next), so they follow its
/// stamped ones rather than slip ahead of them; events of one stamp keep the kiosk's order (ties in the line
/// go by ticket id, which is issue order).
final class LateEvents: Sendable {
    let lateAfter: Duration
    let database: any ServerStorage
    /// Per store and device, the latest arrival stamped on one of its events, nil for none (read from the log
    /// on the device's first push since start).
    private let lastStamp = Mutex<[String: Timestamp?]>([:])

    init(lateAfter: Duration, database: any ServerStorage) {
        self.lateAfter = lateAfter
        self.database = database
    }

    /// The events as the log keeps them: late ones stamped with `now`, none with a stamp of the kiosk's own.
    func stamped(
        _ events: [StoreEvent],
        store: StoreID,
        device: DeviceID,
        now: Timestamp
    ) async throws -> [StoreEvent] {
        let key = "\(store.uuidString)/\(device)"
        var latest: Timestamp?
        if let known = lastStamp.withLock({ $0[key] }) {
            latest = known
        } else {
            latest = try await database.lastReceivedAt(store: store, device: device)
        }
        let stamped = events.map { event in
            var event = event
            event.receivedAt = nil
            if event.time < now - lateAfter || latest.map({ event.time < $0 }) == true {
                event.receivedAt = now
                latest = now
            }
            return event
        }
        lastStamp.withLock { stamps in
            let before = stamps[key] ?? nil
            stamps[key] = .some([before, latest].compactMap { $0 }.max())
        }
        return stamped
    }
}
