import Foundation
import KioskCore

/// A browser's Web Push subscription for one ticket (issue 49): where its push service takes messages for it
/// (`endpoint`), the keys the messages are encrypted for, and what the notices need — the holder's journey for
/// "time to leave", the page's language and the ticket's page to open on a tap. One per ticket, kept while the
/// ticket lives (``PushNotices`` ends it), and the notices already sent, so that neither a restart nor another
/// replica sends one twice.
public struct PushSubscription: Sendable, Codable, Equatable {
    public var ticket: TicketID
    public var store: StoreID
    /// An `https` URL of a push service the server's configuration allows (``PushEndpoints``).
    public var endpoint: String
    /// The browser's P-256 public key (65 bytes) and auth secret (16 bytes).
    public var p256dh: Data
    public var auth: Data
    public var journeyMinutes: Int?
    /// `en` or `it`.
    public var language: String
    /// The ticket's page (`/T/<signed code>`), checked to be this ticket's.
    public var page: String
    /// The notices sent (``PushNotices/Notice/key``).
    public var sent: [String]
    public var createdAt: Int64
}

/// How both backends keep ``PushSubscription``s: by ticket, with the store (to forget a store's), the whole
/// record as JSON.
enum PushColumns {
    static let sqlite = """
        CREATE TABLE push_subscriptions (
            ticket TEXT PRIMARY KEY,
            store TEXT NOT NULL REFERENCES stores(id),
            record BLOB NOT NULL
        ) WITHOUT ROWID;
        """

    static let postgres = [
        """
        CREATE TABLE push_subscriptions (
            ticket uuid PRIMARY KEY,
            store uuid NOT NULL REFERENCES stores(id),
            record bytea NOT NULL
        )
        """
    ]

    static func encode(_ subscription: PushSubscription) throws -> Data {
        try JSONEncoder().encode(subscription)
    }

    /// The record, or nil for one this version cannot read (left alone).
    static func decode(_ data: Data) -> PushSubscription? {
        try? JSONDecoder().decode(PushSubscription.self, from: data)
    }
}
