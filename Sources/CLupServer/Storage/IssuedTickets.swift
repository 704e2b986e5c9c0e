import KioskCore

/// Which store issued each ticket id: a ticket id belongs to one store for ever (a kiosk of another store that
/// read the id in a QR cannot issue a paper ticket under it, which would make the real holder's status and
/// cancel answer for the wrong store). The table's key is the constraint, written in the append's own
/// transaction with its `ticketIssued` event, so two stores appending the same id at once cannot both succeed;
/// an issue appended again by its own store keeps its claim. Existing logs are claimed by their first issue.
/// Claims go with the events they came from (``ServerStorage/removeEvents(store:before:through:)``).
enum IssuedTickets {
    /// The ticket id `event` claims: a `ticketIssued`'s, nil for every other event.
    static func ticket(issuedBy event: StoreEvent) -> TicketID? {
        if case .ticketIssued(let ticket, _) = event.body { ticket.id } else { nil }
    }

    static let sqlite = """
        CREATE TABLE issued_tickets (
            ticket TEXT PRIMARY KEY,
            store TEXT NOT NULL REFERENCES stores(id),
            issued_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX issued_tickets_store ON issued_tickets(store, issued_at);
        INSERT OR IGNORE INTO issued_tickets (ticket, store, issued_at)
            SELECT ticket, store, time FROM events
            WHERE kind = 'ticketIssued' AND ticket IS NOT NULL ORDER BY time, sequence;
        """

    /// One statement each (PostgreSQL prepares them one at a time).
    static let postgres = [
        """
        CREATE TABLE issued_tickets (
            ticket uuid PRIMARY KEY,
            store uuid NOT NULL REFERENCES stores(id),
            issued_at bigint NOT NULL
        )
        """,
        "CREATE INDEX issued_tickets_store ON issued_tickets(store, issued_at)",
        """
        INSERT INTO issued_tickets (ticket, store, issued_at)
        SELECT DISTINCT ON (ticket) ticket, store, time FROM events
        WHERE kind = 'ticketIssued' AND ticket IS NOT NULL ORDER BY ticket, time, sequence
        """,
    ]
}
