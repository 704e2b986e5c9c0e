import KioskCore
import StationStore

extension StationLog {
    /// The log of the station `config` describes: its events name the configured store and device, stamped never
    /// before the last time `clockWatch` believed the clock.
    public init(store: LocalStore, queue: QueueReplica, config: KioskConfig, clockWatch: ClockWatch? = nil) {
        var stamp: (@Sendable (Timestamp) -> Timestamp)?
        if let clockWatch { stamp = { clockWatch.stamp($0) } }
        self.init(store: store, queue: queue, storeID: config.store.id, device: config.device.id, stamp: stamp)
    }
}
