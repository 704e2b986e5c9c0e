import Foundation
import GRDB
import KioskCore

private let bodyDecoder = JSONDecoder()

extension StoreEvent {
    /// The event a row of a SQLite `events` table holds — the kiosk's log and clup-server's alike: `id`, `device`,
    /// `time` and `received_at` (milliseconds), `body` (the stored body's JSON), `sequence`, and `store` unless
    /// the caller knows it. Nil when an id is not a UUID (the caller names the row in its own error).
    public init?(row: Row, store: StoreID? = nil) throws {
        guard let id = UUID(uuidString: row["id"]), let store = store ?? UUID(uuidString: row["store"]) else {
            return nil
        }
        self.init(
            logged: id,
            store: store,
            device: row["device"],
            time: row["time"],
            body: try bodyDecoder.decode(StoredBody.self, from: row["body"] as Data),
            sequence: row["sequence"],
            receivedAt: row["received_at"]
        )
    }
}
