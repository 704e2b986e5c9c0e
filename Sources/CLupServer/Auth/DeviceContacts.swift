import KioskCore
import Synchronization

/// When each enrolled kiosk last called the server: every request it authenticates counts (its long-polls
/// come at least every `pull_wait` seconds while it runs). The console shows it, and warns of a kiosk silent
/// for more than a minute. Kept in memory: a restarted server knows a kiosk again at its next call.
final class DeviceContacts: Sendable {
    private struct Key: Hashable {
        var store: StoreID
        var device: DeviceID
    }

    private let last = Mutex<[Key: Timestamp]>([:])

    func seen(_ device: DeviceID, of store: StoreID, at now: Timestamp) {
        last.withLock { $0[Key(store: store, device: device)] = now }
    }

    /// When `device` of `store` last called, if it did since the server started.
    func lastContact(_ device: DeviceID, of store: StoreID) -> Timestamp? {
        last.withLock { $0[Key(store: store, device: device)] }
    }

    /// Forgets a revoked kiosk.
    func forget(_ device: DeviceID, of store: StoreID) {
        _ = last.withLock { $0.removeValue(forKey: Key(store: store, device: device)) }
    }
}
