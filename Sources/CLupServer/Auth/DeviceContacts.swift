import KioskCore
import SyncWire
import Synchronization

/// When each enrolled kiosk last called the server — every request it authenticates counts (its long-polls
/// come at least every `pull_wait` seconds while it runs) — and how it said it is (``KioskHealth``). The
/// console shows it and warns of a kiosk silent for more than a minute; the fleet's metrics export it. Kept in
/// memory: a restarted server knows a kiosk again at its next call (its health report follows within 30 s).
final class DeviceContacts: Sendable {
    private struct Key: Hashable {
        var store: StoreID
        var device: DeviceID
    }

    struct Seen: Sendable {
        var at: Timestamp
        /// The sync protocol its last request spoke (``SyncProtocol``): a kiosk refused as too old is seen too.
        var syncProtocol: Int?
        var health: KioskHealth?
        /// How far its clock was from this server's at its last report (its `clock` minus the time here).
        var clockOffset: Duration?
    }

    private let last = Mutex<[Key: Seen]>([:])

    func seen(_ device: DeviceID, of store: StoreID, at now: Timestamp, speaking syncProtocol: Int) {
        last.withLock {
            let key = Key(store: store, device: device)
            $0[key, default: Seen(at: now)].at = now
            $0[key]?.syncProtocol = syncProtocol
        }
    }

    func report(_ health: KioskHealth, from device: DeviceID, of store: StoreID, at now: Timestamp) {
        last.withLock {
            let key = Key(store: store, device: device)
            $0[key, default: Seen(at: now)].at = now
            $0[key]?.health = health
            $0[key]?.clockOffset = health.clock.map { .milliseconds($0 - now.milliseconds) }
        }
    }

    /// When `device` of `store` last called and its last report, if it called since the server started.
    func lastContact(_ device: DeviceID, of store: StoreID) -> Seen? {
        last.withLock { $0[Key(store: store, device: device)] }
    }

    /// Every kiosk heard from, by store.
    func all() -> [(store: StoreID, device: DeviceID, seen: Seen)] {
        last.withLock { $0.map { ($0.key.store, $0.key.device, $0.value) } }
    }

    /// Forgets a revoked kiosk.
    func forget(_ device: DeviceID, of store: StoreID) {
        _ = last.withLock { $0.removeValue(forKey: Key(store: store, device: device)) }
    }
}
