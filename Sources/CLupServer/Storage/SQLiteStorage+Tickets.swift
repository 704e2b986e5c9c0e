import Foundation
import GRDB
import KioskCore

extension SQLiteStorage {
    /// Issues an app ticket or a booking: the next number of the business day for its prefix, the signed
    /// code, who holds it, and the `ticketIssued` event in the store's log — one transaction, so numbers are never
    /// reused.
    /// `check` runs first on the database writer (e.g. that a slot still has room) and may refuse: it sees
    /// every earlier issue applied in memory, so such an issue gets a transaction of its own. Without a
    /// check, issues waiting for the writer share one (``GroupCommit``).
    public func issue(
        kind: TicketKind,
        store: StoreRecord,
        slot: BookingSlot?,
        told: WaitRange?,
        validity: (from: Timestamp, until: Timestamp)?,
        statusURL: String,
        holder: Holder?,
        at now: Timestamp,
        check: (@Sendable () throws -> Void)?,
        onCommit: @escaping @Sendable ([StoreEvent]) -> Void
    ) async throws -> AppTicket {
        let prefix = kind == .booking ? "B" : "V"
        let day = store.profile.calendar.businessDay(at: now)
        let write: @Sendable (Database) throws -> (Ticket, Int64) = { db in
            // On the writer, after every earlier commit was applied in memory: a check here sees them all.
            try check?()
            let arguments: StatementArguments = [store.id.uuidString, prefix, day.number]
            let last =
                try Int.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT last FROM ticket_numbers WHERE store = ? AND prefix = ? AND business_day = ?"
                    ),
                    arguments: arguments
                ) ?? 0
            guard last < Int(UInt16.max) else {  // the signed code holds the number in 16 bits
                throw APIError(
                    .serviceUnavailable,
                    "no \(prefix) ticket numbers left today — try a paper ticket at the store"
                )
            }
            try db.cachedStatement(
                sql: """
                    INSERT INTO ticket_numbers (store, prefix, business_day, last) VALUES (?, ?, ?, ?)
                    ON CONFLICT (store, prefix, business_day) DO UPDATE SET last = excluded.last
                    """
            ).execute(arguments: arguments + [last + 1])
            let ticket = Ticket(
                id: .v7(at: now),
                store: store.id,
                kind: kind,
                code: TicketCode(prefix: prefix, number: last + 1),
                issuedAt: now,
                slot: slot,
                issuer: StoreLogs.serverDevice
            )
            if let holder { try self.recordHolder(holder, of: ticket, in: db) }
            let event = StoreEvent.new(
                .ticketIssued(ticket, told: told),
                store: store.id,
                device: StoreLogs.serverDevice,
                at: now
            )
            let appended = try self.append([event], store: store.id, in: db, onCommit: onCommit)
            // Last: the commit callback `append` registered must only belong to a write that succeeded.
            return (ticket, appended[0].sequence)
        }
        let (ticket, sequence) = check == nil ? try await groupCommit.write(write) : try await pool.write(write)
        // Signed off the writer: signatures of concurrent requests do not queue behind each other.
        let qr = TicketCodec.encode(
            ticket,
            validFrom: validity?.from,
            validUntil: validity?.until,
            signer: store.signer,
            prefix: statusURL
        )
        return AppTicket(ticket: ticket, qr: qr, sequence: sequence)
    }
}
