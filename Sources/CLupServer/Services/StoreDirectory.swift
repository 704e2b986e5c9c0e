import Crypto
import KioskCore
import ServiceSupport

/// What the routes, the pages and the console read of the stores: each store's queue as it stands (a
/// snapshot, ``StoreQueues/Live``), a store's key ring, the estimate's figures and the server's clock. Nothing
/// here writes: tickets, bookings, cancels and settings go through the desks and the office, which alone call
/// the queues' writers and storage.
struct StoreDirectory: Sendable {
    private let logs: StoreQueues

    init(_ logs: StoreQueues) { self.logs = logs }

    var clock: WallClock { logs.clock }

    /// Every store this replica follows, in no order.
    var all: [StoreQueues.Live] { logs.all }

    func store(_ id: StoreID) -> StoreQueues.Live? { logs.store(id) }

    /// The store whose queue holds ticket `id`, while it does.
    func store(containing id: TicketID) -> StoreQueues.Live? { logs.store(containing: id) }

    /// The store's key ring (the server's key, then its kiosks'), to check a ticket's code against.
    func keyRing(of store: StoreID) async throws -> [(device: DeviceID, key: Curve25519.Signing.PublicKey)] {
        try await logs.keyRing(of: store)
    }

    /// How right the told waits were, by store, for `GET /metrics`.
    var estimates: EstimateMetrics { logs.estimates }
}
