import Crypto
import Foundation
import GRDB
import KioskCore
import ServiceSupport
import SyncWire

extension SQLiteStorage {
    /// Enrolls a kiosk of a store: returns its credential (shown once; only its SHA-256 is kept). Enrolling
    /// the same device id again replaces its credential (a replaced box) and forgets its key.
    public func enroll(device: DeviceID, store: StoreID, role: KioskRole, at now: Timestamp) throws -> String {
        let credential = Secrets.token()
        try pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO devices (store, id, credential_hash, created_at, role) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (store, id) DO UPDATE SET credential_hash = excluded.credential_hash,
                        public_key = NULL, role = excluded.role
                    """,
                arguments: [store.uuidString, device, Secrets.hash(credential), now.milliseconds, role.rawValue]
            )
        }
        return credential
    }

    /// A store's enrolled kiosks, by id.
    public func devices(store: StoreID?) throws -> [EnrolledDevice] {
        try pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT store, id, public_key, created_at, role FROM devices
                    WHERE ?1 IS NULL OR store = ?1 ORDER BY store, id
                    """,
                arguments: [store?.uuidString]
            ).compactMap { row in
                let key = (row["public_key"] as Data?).flatMap {
                    try? Curve25519.Signing.PublicKey(rawRepresentation: $0)
                }
                guard let owner = StoreID(uuidString: row["store"]) else { return nil }
                return EnrolledDevice(
                    store: owner,
                    device: row["id"],
                    role: KioskRole(rawValue: row["role"]) ?? .both,
                    enrolledAt: Timestamp(milliseconds: row["created_at"]),
                    keyId: key.map { KeyID(publicKey: $0).description }
                )
            }
        }
    }

    /// Revokes a kiosk: its credential stops working at once and its key leaves the store's key ring (doors
    /// drop it at their next sync, and refuse the tickets it signed as forged). False when it was not enrolled.
    public func revoke(device: DeviceID, store: StoreID) throws -> Bool {
        try pool.write { db in
            try db.execute(
                sql: "DELETE FROM devices WHERE store = ? AND id = ?",
                arguments: [store.uuidString, device]
            )
            return db.changesCount > 0
        }
    }

    /// The device a credential belongs to.
    public func device(credential: String) throws -> KioskGrant? {
        try pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT store, id, role FROM devices WHERE credential_hash = ?",
                    arguments: [Secrets.hash(credential)]
                ), let store = UUID(uuidString: row["store"])
            else { return nil }
            return KioskGrant(store: store, device: row["id"], role: KioskRole(rawValue: row["role"]) ?? .both)
        }
    }

    /// Registers the public key a device signs its tickets with.
    public func setKey(_ key: Curve25519.Signing.PublicKey, device: DeviceID, store: StoreID) throws {
        try pool.write { db in
            try db.execute(
                sql: "UPDATE devices SET public_key = ? WHERE store = ? AND id = ?",
                arguments: [key.rawRepresentation, store.uuidString, device]
            )
        }
    }

    /// The store's key ring: the server's own key for app tickets and every enrolled device's key.
    public func keyRing(store: StoreID) throws -> [(device: DeviceID, key: Curve25519.Signing.PublicKey)] {
        try pool.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT id, public_key FROM devices WHERE store = ? AND public_key IS NOT NULL ORDER BY id",
                arguments: [store.uuidString]
            ).compactMap { row in
                guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: row["public_key"] as Data) else {
                    return nil
                }
                return (row["id"], key)
            }
        }
    }
}
