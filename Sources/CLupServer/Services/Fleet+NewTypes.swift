import KioskCore
import SyncWire

extension Fleet {
    /// Refuses to write an event of `kind` to `store`'s log while a kiosk of the store, still served here, speaks a
    /// protocol that would stop pulling at it (``SyncProtocol/oldestReading(_:)``: protocol 1 freezes on a type
    /// it does not know): 409, naming the kiosks and both ways out. A kiosk not heard since the server started
    /// is not held against it (its protocol is not known; `--oldest-kiosk-protocol 2` covers it). `field` names the
    /// event in a kiosk's batch (`events[3].body.type`): the kiosk sets that one aside and pushes the rest.
    func requireNoneFreezes(on kind: StoreEvent.Kind, store: StoreID, field: String? = nil) async throws {
        let reading = SyncProtocol.oldestReading(kind)
        let behind = try await freezing(on: kind, store: store)
        guard !behind.isEmpty else { return }
        throw Refusal(
            .conflict,
            "kiosk \(behind.sorted().prefix(5).joined(separator: ", ")) of this store would stop syncing at a "
                + "\(kind.rawValue) (sync protocol \(SyncProtocol.withoutHeader)): update kioskd on it, or start "
                + "clup-server with --oldest-kiosk-protocol \(reading) (docs/deployment.md)",
            field: field
        )
    }

    /// The kiosks of `store` that would stop pulling at an event of `kind` (none when the server is started for
    /// kiosks that all read it).
    func freezing(on kind: StoreEvent.Kind, store: StoreID) async throws -> [DeviceID] {
        let reading = SyncProtocol.oldestReading(kind)
        guard oldestProtocol < reading else { return [] }
        return try await kiosks(of: store).filter { ($0.syncProtocol ?? reading) < reading }.map(\.device)
    }
}
