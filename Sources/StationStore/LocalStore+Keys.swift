import Crypto
import Foundation
import GRDB
import KioskCore

/// The store's key ring as the station caches it: the public keys its other devices sign tickets with, so a
/// door verifies every ticket of the store offline. Filled by sync (which also takes revoked keys out) or by
/// `kioskd keys trust`.
extension LocalStore {
    public struct TrustedKey: Sendable, Equatable {
        public var keyID: KeyID
        public var publicKey: Curve25519.Signing.PublicKey
        /// The device that signs with it (for people; verification uses the key id).
        public var device: DeviceID

        public static func == (a: Self, b: Self) -> Bool {
            a.keyID == b.keyID && a.publicKey.rawRepresentation == b.publicKey.rawRepresentation
                && a.device == b.device
        }
    }

    /// Adds (or renames) a key of the store's ring; durable when this returns.
    /// `fromServer`: the server's ring listed it (a key once listed stays marked so until the ring drops it).
    public func trust(
        _ key: Curve25519.Signing.PublicKey,
        device: DeviceID,
        at now: Timestamp,
        fromServer: Bool = false
    ) throws {
        try db.write { try Self.insertTrusted(key, device: device, at: now, fromServer: fromServer, in: $0) }
    }

    private static func insertTrusted(
        _ key: Curve25519.Signing.PublicKey,
        device: DeviceID,
        at now: Timestamp,
        fromServer: Bool,
        in db: Database
    ) throws {
        try db.execute(
            sql: """
                INSERT INTO trusted_keys (key_id, public_key, device, added_at, from_server) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (key_id) DO UPDATE SET device = excluded.device,
                    from_server = MAX(from_server, excluded.from_server)
                """,
            arguments: [KeyID(publicKey: key).description, key.rawRepresentation, device, now.milliseconds, fromServer]
        )
    }

    /// Makes the cached ring the server's, in one transaction: its keys are added (or marked as the
    /// server's), and keys that came from the server but are no longer in its ring — a revoked kiosk's, a
    /// replaced box's — are removed, so the tickets they signed are refused as forged. Keys trusted by hand
    /// and never listed by the server stay. `own` (this device's key id) is never cached.
    public func adoptServerRing(
        _ ring: [(device: DeviceID, key: Curve25519.Signing.PublicKey)],
        own: KeyID,
        at now: Timestamp
    ) throws -> (added: [TrustedKey], removed: [TrustedKey]) {
        let listed = ring.filter { KeyID(publicKey: $0.key) != own }
        let before = try trustedKeys()
        let known = Set(before.map(\.keyID))
        let keep = Set(listed.map { KeyID(publicKey: $0.key) })
        try db.write { db in
            for (device, key) in listed {
                try Self.insertTrusted(key, device: device, at: now, fromServer: true, in: db)
            }
            let server = try String.fetchAll(db, sql: "SELECT key_id FROM trusted_keys WHERE from_server = 1")
            for id in server where !keep.contains(where: { $0.description == id }) {
                try db.execute(sql: "DELETE FROM trusted_keys WHERE key_id = ?", arguments: [id])
            }
        }
        let after = try trustedKeys()
        let remaining = Set(after.map(\.keyID))
        return (after.filter { !known.contains($0.keyID) }, before.filter { !remaining.contains($0.keyID) })
    }

    /// Removes a key from the ring; tickets it signed are refused as forged from then on.
    @discardableResult
    public func distrust(keyID: String) throws -> Bool {
        try db.write { db in
            try db.execute(sql: "DELETE FROM trusted_keys WHERE key_id = ?", arguments: [keyID.lowercased()])
            return db.changesCount > 0
        }
    }

    /// The cached keys of the store's other devices, oldest first.
    public func trustedKeys() throws -> [TrustedKey] {
        try db.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM trusted_keys ORDER BY added_at, key_id").map { row in
                let raw: Data = row["public_key"]
                guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else {
                    throw StoreError(
                        description: "\(path): the trusted key \(row["key_id"] as String) is damaged — remove it "
                            + "with `kioskd keys distrust` and trust it again"
                    )
                }
                return TrustedKey(keyID: KeyID(publicKey: key), publicKey: key, device: row["device"])
            }
        }
    }

    /// What a door verifies tickets with: this device's own key (as `device`'s) and the cached ring, each key
    /// with the device it belongs to (a code is valid only under its issuer's key).
    public func keyRing(device: DeviceID? = nil) throws -> KeyRing {
        var ring = KeyRing()
        for trusted in try trustedKeys() { ring.add(trusted.publicKey, device: trusted.device) }
        ring.add(try signingKey().publicKey, device: device)
        return ring
    }
}
