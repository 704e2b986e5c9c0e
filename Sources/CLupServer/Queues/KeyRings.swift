import Crypto
import KioskCore
import Synchronization

/// Each store's kiosk keys as the database last said, so that a kiosk's long-poll and a ticket page do not read
/// them every time (every page of the log carries the ring's digest).
///
/// Forgotten when they change: the services that enroll, revoke or register a key forget their store's ring
/// after the write (``StoreQueues/keyRingChanged(_:)``), and on PostgreSQL every other replica forgets it when
/// the write's `k:` notification arrives, or forgets every ring when it listens again (it may have missed
/// some). A read that began before a change is not kept (a generation counts the changes), so a ring read from
/// before a revocation never outlives it.
final class KeyRings: Sendable {
    typealias Ring = [(device: DeviceID, key: Curve25519.Signing.PublicKey)]

    private let state = Mutex<(generation: Int, rings: [StoreID: Ring])>((0, [:]))
    /// Reads of the database (the tests count them).
    let reads = Atomic<Int>(0)

    /// The store's ring, read with `read` when it is not known.
    func ring(of store: StoreID, read: () async throws -> Ring) async throws -> Ring {
        let (generation, known) = state.withLock { ($0.generation, $0.rings[store]) }
        if let known { return known }
        reads.add(1, ordering: .relaxed)
        let ring = try await read()
        state.withLock { if $0.generation == generation { $0.rings[store] = ring } }
        return ring
    }

    /// How many times a ring was forgotten (the tests tell a read after one from a read of a kept ring).
    var generation: Int { state.withLock { $0.generation } }

    /// Forgets one store's ring (nil: every store's).
    func forget(_ store: StoreID?) {
        state.withLock { state in
            state.generation += 1
            if let store { state.rings[store] = nil } else { state.rings.removeAll() }
        }
    }
}
