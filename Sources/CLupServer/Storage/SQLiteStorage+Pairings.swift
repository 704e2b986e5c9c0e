import Foundation
import GRDB
import KioskCore

extension SQLiteStorage {
    public func addPairing(_ pairing: Pairing, at now: Timestamp) throws {
        let record = try PairingColumns.encode(pairing)
        try pool.write { db in
            try db.execute(sql: "DELETE FROM pairings WHERE expires_at <= ?", arguments: [now.milliseconds])
            try db.execute(
                sql: """
                    INSERT INTO pairings (device_code_hash, user_code, address, expires_at, state, record)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    pairing.deviceCodeHash, pairing.userCode, pairing.address, pairing.expiresAt.milliseconds,
                    pairing.state.rawValue, record,
                ]
            )
        }
    }

    public func pairingCounts(address: String, at now: Timestamp) throws -> (all: Int, fromAddress: Int) {
        try pool.read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT count(*) AS a, coalesce(sum(address = ?), 0) AS mine FROM pairings WHERE expires_at > ?
                    """,
                arguments: [address, now.milliseconds]
            )
            return (row?["a"] ?? 0, row?["mine"] ?? 0)
        }
    }

    public func pairing(userCode: String) throws -> Pairing? {
        try pool.read { db in
            try Data.fetchOne(db, sql: "SELECT record FROM pairings WHERE user_code = ?", arguments: [userCode])
        }.flatMap(PairingColumns.decode)
    }

    public func pairing(deviceCodeHash: Data) throws -> Pairing? {
        try pool.read { db in
            try Data.fetchOne(
                db,
                sql: "SELECT record FROM pairings WHERE device_code_hash = ?",
                arguments: [deviceCodeHash]
            )
        }.flatMap(PairingColumns.decode)
    }

    public func replacePairing(_ pairing: Pairing, whileIn state: Pairing.State) throws -> Bool {
        let record = try PairingColumns.encode(pairing)
        return try pool.write { db in
            try db.execute(
                sql: "UPDATE pairings SET state = ?, record = ? WHERE device_code_hash = ? AND state = ?",
                arguments: [pairing.state.rawValue, record, pairing.deviceCodeHash, state.rawValue]
            )
            return db.changesCount > 0
        }
    }
}
