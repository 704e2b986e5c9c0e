import Crypto
import KioskCore
import SyncWire

extension StoreQueues {
    /// Learns every store's wait model from its traffic of the last weeks (``WaitModel/learn(_:prior:now:)``),
    /// and keeps them for the other replicas (the one holding the duties' lease does this, once for the fleet).
    public func refreshModels(at now: Timestamp) async throws {
        var models: [StoreID: WaitModel] = [:]
        for store in all {
            let model = WaitModel.learn(store.traffic, prior: store.prior, now: now)
            live.withLock {
                $0[store.record.id]?.set(model: model)
                $0[store.record.id]?.traffic.prune(now: now)
            }
            models[store.record.id] = model
        }
        try await database.saveWaitModels(models)
    }

    /// Takes the wait models another replica learnt (``refreshModels(at:)``).
    public func loadModels() async throws {
        let models = try await database.waitModels()
        live.withLock { stores in
            for (store, model) in models { stores[store]?.set(model: model) }
        }
    }

    /// A store's key ring: the server's own key (app tickets, bookings) first, then every enrolled kiosk's
    /// registered key (kept in memory until it changes: ``KeyRings``). 404 for an unknown store.
    func keyRing(of store: StoreID) async throws -> [(device: DeviceID, key: Curve25519.Signing.PublicKey)] {
        let live = try await require(store)
        let kiosks = try await keyRings.ring(of: store) { try await database.keyRing(store: store) }
        return [(ServerIssue.device, live.record.signer.publicKey)] + kiosks
    }

    /// Forgets what ``keyRing(of:)`` kept of the store (nil: of every store): after a kiosk of it was enrolled,
    /// revoked or registered a key, here or on another replica.
    public func keyRingChanged(_ store: StoreID?) { keyRings.forget(store) }

    /// The same ring as the wire carries it (``KeyRingPage``, ``Paired``).
    func deviceKeys(of store: StoreID) async throws -> [DeviceKey] {
        try await keyRing(of: store).map { device, key in
            DeviceKey(
                device: device,
                keyId: KeyID(publicKey: key).description,
                publicKey: key.rawRepresentation.base64EncodedString()
            )
        }
    }
}
