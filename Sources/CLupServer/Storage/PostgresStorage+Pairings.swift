import Foundation
import KioskCore
import PostgresNIO

extension PostgresStorage {
    public func addPairing(_ pairing: Pairing, at now: Timestamp) async throws {
        let record = try PairingColumns.encode(pairing)
        try await pool.query("DELETE FROM pairings WHERE expires_at <= \(now.milliseconds)")
        try await pool.query(
            """
            INSERT INTO pairings (device_code_hash, user_code, address, expires_at, state, record)
            VALUES (\(pairing.deviceCodeHash), \(pairing.userCode), \(pairing.address),
                \(pairing.expiresAt.milliseconds), \(pairing.state.rawValue), \(record))
            """
        )
    }

    public func pairingCounts(address: String, at now: Timestamp) async throws -> (all: Int, fromAddress: Int) {
        let rows = try await pool.query(
            """
            SELECT count(*), count(*) FILTER (WHERE address = \(address)) FROM pairings
            WHERE expires_at > \(now.milliseconds)
            """
        )
        for (all, mine) in try rows.decode((Int64, Int64).self) { return (Int(all), Int(mine)) }
        return (0, 0)
    }

    public func pairing(userCode: String) async throws -> Pairing? {
        try record(try await pool.query("SELECT record FROM pairings WHERE user_code = \(userCode)"))
    }

    public func pairing(deviceCodeHash: Data) async throws -> Pairing? {
        try record(try await pool.query("SELECT record FROM pairings WHERE device_code_hash = \(deviceCodeHash)"))
    }

    private func record(_ rows: [PostgresRow]) throws -> Pairing? {
        for data in try rows.decode(Data.self) { return PairingColumns.decode(data) }
        return nil
    }

    public func replacePairing(_ pairing: Pairing, whileIn state: Pairing.State) async throws -> Bool {
        let rows = try await pool.query(
            """
            UPDATE pairings SET state = \(pairing.state.rawValue), record = \(try PairingColumns.encode(pairing))
            WHERE device_code_hash = \(pairing.deviceCodeHash) AND state = \(state.rawValue) RETURNING 1
            """
        )
        return !rows.isEmpty
    }
}
