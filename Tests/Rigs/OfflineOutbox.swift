import Foundation
import KioskCore
import KioskStation
@_spi(Seeding) import StationStore

/// A kiosk's database holding events it wrote while offline (all in its outbox), and its queue with them
/// applied: where the sync tests start a ``SyncClient`` from.
struct OfflineOutbox {
    let store: LocalStore
    let replica: QueueReplica

    /// `events` written into a fresh `kioskd.sqlite` in `directory`, for a store of `capacity`.
    init(_ events: [StoreEvent], in directory: String, capacity: Int) throws {
        store = try LocalStore(path: "\(directory)/kioskd.sqlite")
        try store.append(events)
        replica = try QueueReplica(store: store, capacity: capacity)
        replica.apply(events)
    }

    /// The door's refusal of a scan that was no ticket: an event any door writes, which changes no line.
    static func refusedScan(store: StoreID, door: String, at time: Timestamp) -> StoreEvent {
        .new(.scanRefused(reason: "not a ticket", ticket: nil, door: door), store: store, device: door, at: time)
    }
}
