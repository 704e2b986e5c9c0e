import Crypto
import Foundation
import KioskCore
import PostgresNIO
import ServiceSupport

extension PostgresStorage {
    public func enroll(device: DeviceID, store: StoreID, role: KioskRole, at now: Timestamp) async throws -> String {
        let credential = Secrets.token()
        try await pool.query(
            """
            INSERT INTO devices (store, id, credential_hash, created_at, role)
            VALUES (\(store), \(device), \(Secrets.hash(credential)), \(now.milliseconds), \(role.rawValue))
            ON CONFLICT (store, id) DO UPDATE SET credential_hash = excluded.credential_hash, public_key = NULL,
                role = excluded.role
            """
        )
        try await notifyKeyRingChanged(store)
        return credential
    }

    public func devices(store: StoreID?) async throws -> [EnrolledDevice] {
        var found: [EnrolledDevice] = []
        let rows =
            if let store {
                try await pool.query(
                    "SELECT store, id, public_key, created_at, role FROM devices WHERE store = \(store) ORDER BY id"
                )
            } else {
                try await pool.query("SELECT store, id, public_key, created_at, role FROM devices ORDER BY store, id")
            }
        for (owner, id, raw, created, role) in try rows.decode((UUID, String, Data?, Int64, String).self) {
            let key = raw.flatMap { try? Curve25519.Signing.PublicKey(rawRepresentation: $0) }
            found.append(
                EnrolledDevice(
                    store: owner,
                    device: id,
                    role: KioskRole(rawValue: role) ?? .both,
                    enrolledAt: Timestamp(milliseconds: created),
                    keyId: key.map { KeyID(publicKey: $0).description }
                )
            )
        }
        return found
    }

    public func revoke(device: DeviceID, store: StoreID) async throws -> Bool {
        let rows = try await pool.query(
            "DELETE FROM devices WHERE store = \(store) AND id = \(device) RETURNING 1"
        )
        if !rows.isEmpty { try await notifyKeyRingChanged(store) }
        return !rows.isEmpty
    }

    public func device(credential: String) async throws -> KioskGrant? {
        let rows = try await pool.query(
            "SELECT store, id, role FROM devices WHERE credential_hash = \(Secrets.hash(credential))"
        )
        for (store, id, role) in try rows.decode((UUID, String, String).self) {
            return KioskGrant(store: store, device: id, role: KioskRole(rawValue: role) ?? .both)
        }
        return nil
    }

    public func setKey(_ key: Curve25519.Signing.PublicKey, device: DeviceID, store: StoreID) async throws {
        try await pool.query(
            "UPDATE devices SET public_key = \(Data(key.rawRepresentation)) WHERE store = \(store) AND id = \(device)"
        )
        try await notifyKeyRingChanged(store)
    }

    /// Tells the other replicas (``LogFollower``) that the store's key ring changed (``KeyRings``): `k:<store>`.
    private func notifyKeyRingChanged(_ store: StoreID) async throws {
        try await pool.query("SELECT pg_notify(\(Self.eventsChannel), \("k:\(store.uuidString)"))")
    }

    public func keyRing(store: StoreID) async throws -> [(device: DeviceID, key: Curve25519.Signing.PublicKey)] {
        var ring: [(device: DeviceID, key: Curve25519.Signing.PublicKey)] = []
        let rows = try await pool.query(
            "SELECT id, public_key FROM devices WHERE store = \(store) AND public_key IS NOT NULL ORDER BY id"
        )
        for (id, raw) in try rows.decode((String, Data).self) {
            if let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) { ring.append((id, key)) }
        }
        return ring
    }

    // MARK: Holders and the server's keys

    public func removeHolders(issuedBefore time: Timestamp) async throws -> Int {
        let rows = try await pool.query(
            "DELETE FROM ticket_holders WHERE issued_at < \(time.milliseconds) RETURNING 1"
        )
        return try rows.decode(Int32.self).reduce(0) { count, _ in count + 1 }
    }

    public func holders(since: Timestamp) async throws -> [(TicketID, Holder)] {
        var found: [(TicketID, Holder)] = []
        let rows = try await pool.query(
            "SELECT ticket, holder FROM ticket_holders WHERE issued_at >= \(since.milliseconds)"
        )
        for (ticket, hash) in try rows.decode((UUID, Data).self) { found.append((ticket, Holder(hash: hash))) }
        return found
    }

    public func serverKey(_ name: String) async throws -> SymmetricKey {
        let fresh = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        // The first replica to ask makes it; every other one reads that one. A replica that lost the race
        // inside this statement cannot see the winner's row yet (its snapshot is older): it asks again.
        for _ in 0..<2 {
            let rows = try await pool.query(
                """
                WITH made AS (
                    INSERT INTO server_keys (name, key) VALUES (\(name), \(fresh)) ON CONFLICT (name) DO NOTHING
                    RETURNING key
                )
                SELECT key FROM made UNION ALL SELECT key FROM server_keys WHERE name = \(name)
                """
            )
            for key in try rows.decode(Data.self) { return SymmetricKey(data: key) }
        }
        throw StorageFailure(description: "the server key '\(name)' could not be stored")
    }
}
