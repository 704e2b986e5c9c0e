import Foundation
import GRDB
import KioskCore

/// A paper ticket this station issued, as the database keeps it.
public struct IssuedTicket: Sendable, Equatable {
    public var ticket: Ticket
    /// The QR text, signed once at issue so a reprint is identical.
    public var qr: String
    /// How far the ticket got towards the printer; kept in the `printed` column.
    public var state: TicketPrintState
    public var takenAt: Timestamp?
    /// The wait it was told (printed on it), as its `ticketIssued` event keeps it.
    public var told: WaitRange?
}

extension LocalStore {
    /// The ticket issued here and not taken (or voided) yet: the one that waits in the printer (or must be
    /// printed).
    public func waitingTicket(prefix: String) throws -> IssuedTicket? {
        try db.read { db in
            try Row.fetchOne(db, sql: Self.waitingTicketSQL, arguments: [prefix]).map(Self.issuedTicket)
        }
    }

    /// Asked after every tear-off: answered from the `printed_tickets_open` index (migration v8), whatever the
    /// number of tickets the station printed before.
    static let waitingTicketSQL = """
        SELECT t.*, e.body FROM printed_tickets t
        JOIN events e ON e.ticket = t.id AND e.kind = '\(StoreEvent.Kind.ticketIssued.rawValue)'
        WHERE t.prefix = ? AND t.taken_at IS NULL AND t.voided_at IS NULL
        ORDER BY t.issued_at DESC LIMIT 1
        """

    /// Issues the next paper ticket: the next number of the business day for `prefix`, its `ticketIssued`
    /// event (made by `event`, the ``StationLog``'s) and its signed QR, in one durable transaction. Returns the
    /// ticket and the very event stored, which the caller applies to the replica (the replica drops a pending
    /// event when the server's log names its id).
    func issueTicket(
        store: StoreID,
        device: DeviceID,
        prefix: String,
        day: BusinessDay,
        at now: Timestamp,
        qr: (Ticket) -> String,
        event: (Ticket) -> StoreEvent
    ) throws -> (ticket: IssuedTicket, event: StoreEvent) {
        try db.write { db in
            let last =
                try Int.fetchOne(
                    db,
                    sql: "SELECT MAX(number) FROM printed_tickets WHERE prefix = ? AND business_day = ?",
                    arguments: [prefix, day.number]
                ) ?? 0
            // Above every number reserved from a database before this one (one the card damaged), and reserved
            // before it is handed out.
            let floor = codes.reservation?.floor(database: databaseID, prefix: prefix, day: day.number) ?? 0
            let number = max(last, floor) + 1
            try codes.cover(number, database: databaseID, prefix: prefix, day: day.number)
            let ticket = Ticket(
                id: .v7(at: now),
                store: store,
                kind: .paper,
                code: TicketCode(prefix: prefix, number: number),
                issuedAt: now,
                issuer: device
            )
            let text = qr(ticket)
            try db.execute(
                sql: """
                    INSERT INTO printed_tickets (id, prefix, business_day, number, issued_at, qr)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [ticket.id.uuidString, prefix, day.number, number, now.milliseconds, text]
            )
            let event = event(ticket)
            try insert(event, db)
            guard case .ticketIssued(_, let told) = event.body else {
                throw StoreError(description: "ticket \(ticket.id) was issued without its issue event")
            }
            return (IssuedTicket(ticket: ticket, qr: text, state: .notSent, takenAt: nil, told: told), event)
        }
    }

    /// Records how far a ticket got: `.sending` durably before its bytes go out, `.printed` once confirmed,
    /// `.notSent` again when a fault interrupted it.
    func mark(_ id: TicketID, _ state: TicketPrintState) throws {
        try db.write { db in
            try db.execute(
                sql: "UPDATE printed_tickets SET printed = ? WHERE id = ?",
                arguments: [state.rawValue, id.uuidString]
            )
        }
    }

    /// The ticket was torn off (`event`, its `ticketTaken`): it joins the queue now. Durable before the next
    /// ticket is printed. False when the ticket was already recorded taken (nothing was written).
    func recordTaken(_ ticket: Ticket, event: StoreEvent) throws -> Bool {
        try close(
            ticket,
            event,
            sql: "UPDATE printed_tickets SET taken_at = ?, printed = 2 WHERE id = ? AND taken_at IS NULL"
        )
    }

    /// The presenter pulled the ticket back in before anyone took it: its code is void (a `ticketCancelled`
    /// event, so it is never called and its holder, if any, is refused), and the next ticket may be issued.
    /// False when the ticket was already taken or voided (nothing was written).
    func voidTicket(_ ticket: Ticket, event: StoreEvent) throws -> Bool {
        try close(
            ticket,
            event,
            sql: "UPDATE printed_tickets SET voided_at = ? WHERE id = ? AND taken_at IS NULL AND voided_at IS NULL"
        )
    }

    /// The ticket left the printer without a take the station saw and without a void (``StationLog/setAside``):
    /// marked out of the printer (`voided_at`, which ends its time there) with no event. False when it was taken
    /// or closed already.
    func setAside(_ ticket: Ticket, at time: Timestamp) throws -> Bool {
        try db.write { db in
            try db.execute(
                sql: "UPDATE printed_tickets SET voided_at = ? WHERE id = ? AND taken_at IS NULL AND voided_at IS NULL",
                arguments: [time.milliseconds, ticket.id.uuidString]
            )
            return db.changesCount == 1
        }
    }

    /// Ends a waiting ticket's time in the printer: `sql` (arguments: the event's time, the ticket's id) marks
    /// it, and the event is written with it in one transaction only when the mark changed the row. False when
    /// the ticket was closed already.
    private func close(_ ticket: Ticket, _ event: StoreEvent, sql: String) throws -> Bool {
        try db.write { db in
            try db.execute(sql: sql, arguments: [event.time.milliseconds, ticket.id.uuidString])
            guard db.changesCount == 1 else { return false }
            try insert(event, db)
            return true
        }
    }

    /// How many tickets this station issued on a business day.
    public func issuedCount(prefix: String, day: BusinessDay) throws -> Int {
        try db.read { db in
            try Int.fetchOne(
                db,
                sql: "SELECT COUNT(*) FROM printed_tickets WHERE prefix = ? AND business_day = ?",
                arguments: [prefix, day.number]
            ) ?? 0
        }
    }

    static func issuedTicket(_ row: Row) throws -> IssuedTicket {
        guard
            case .ticketIssued(let ticket, let told) = try decoder.decode(
                StoreEvent.Body.self,
                from: row["body"] as Data
            )
        else {
            throw StoreError(description: "ticket \(row["id"] as String? ?? "?") has no issue event")
        }
        let taken: Int64? = row["taken_at"]
        return IssuedTicket(
            ticket: ticket,
            qr: row["qr"],
            state: TicketPrintState(rawValue: row["printed"]) ?? .notSent,
            takenAt: taken.map { Timestamp(milliseconds: $0) },
            told: told
        )
    }
}
