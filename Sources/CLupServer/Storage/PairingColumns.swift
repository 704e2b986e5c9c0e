import Foundation

/// How both backends keep ``Pairing``s: the columns they look a pairing up or count by, and the whole record as
/// JSON (one codec for SQLite and PostgreSQL). A change is written only from the state it was read in
/// (`WHERE state = …`), so two replicas can never deliver one credential twice.
enum PairingColumns {
    static let sqlite = """
        CREATE TABLE pairings (
            device_code_hash BLOB PRIMARY KEY,
            user_code TEXT NOT NULL UNIQUE,
            address TEXT NOT NULL,
            expires_at INTEGER NOT NULL,
            state TEXT NOT NULL,
            record BLOB NOT NULL
        );
        CREATE INDEX pairings_expiry ON pairings(expires_at);
        """

    /// One statement each (PostgreSQL prepares them one at a time).
    static let postgres = [
        """
        CREATE TABLE pairings (
            device_code_hash bytea PRIMARY KEY,
            user_code text NOT NULL UNIQUE,
            address text NOT NULL,
            expires_at bigint NOT NULL,
            state text NOT NULL,
            record bytea NOT NULL
        )
        """,
        "CREATE INDEX pairings_expiry ON pairings(expires_at)",
    ]

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    static func encode(_ pairing: Pairing) throws -> Data { try encoder.encode(pairing) }

    /// A stored record, or nil when it cannot be read (a record of another version is then as good as expired).
    static func decode(_ data: Data) -> Pairing? { try? JSONDecoder().decode(Pairing.self, from: data) }
}
