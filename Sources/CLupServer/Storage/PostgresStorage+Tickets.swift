import Foundation
import KioskCore
import PostgresNIO

extension PostgresStorage {
    public func issue(
        kind: TicketKind,
        store: StoreRecord,
        slot: BookingSlot?,
        validity: (from: Timestamp, until: Timestamp)?,
        statusURL: String,
        holder: Holder?,
        at now: Timestamp,
        check: (@Sendable () throws -> Void)?,
        onCommit: @escaping @Sendable ([StoreEvent]) -> Void
    ) async throws -> AppTicket {
        let prefix = kind == .booking ? "B" : "V"
        let day = BusinessDay(
            at: now,
            openingTime: store.profile.dayStart.secondsAfterMidnight,
            zone: store.profile.zone
        )
        let (ticket, added) = try await transaction { connection in
            // The store's row first: this issue waits for every earlier append to the store to commit.
            _ = try await connection.query("SELECT 1 FROM stores WHERE id = \(store.id) FOR UPDATE", logger: logger)
                .collect()
            try check?()
            var number = 1
            for try await last in try await connection.query(
                """
                INSERT INTO ticket_numbers (store, prefix, business_day, last)
                VALUES (\(store.id), \(prefix), \(Int32(day.number)), 1)
                ON CONFLICT (store, prefix, business_day) DO UPDATE SET last = ticket_numbers.last + 1
                RETURNING last
                """,
                logger: logger
            ).decode(Int32.self) {
                number = Int(last)
            }
            guard number <= Int(UInt16.max) else {  // the signed code holds the number in 16 bits
                throw APIError(
                    .serviceUnavailable,
                    "no \(prefix) ticket numbers left today — try a paper ticket at the store"
                )
            }
            let ticket = Ticket(
                id: .v7(at: now),
                store: store.id,
                kind: kind,
                code: TicketCode(prefix: prefix, number: number),
                issuedAt: now,
                slot: slot,
                issuer: StoreLogs.serverDevice
            )
            if let holder {
                try await connection.query(
                    """
                    INSERT INTO ticket_holders (ticket, store, holder, issued_at)
                    VALUES (\(ticket.id), \(store.id), \(holder.hash), \(now.milliseconds))
                    """,
                    logger: logger
                )
            }
            let event = StoreEvent.new(.ticketIssued(ticket), store: store.id, device: StoreLogs.serverDevice, at: now)
            let (_, added) = try await self.append([event], store: store.id, on: connection)
            return (ticket, added)
        }
        onCommit(added)
        let qr = TicketCodec.encode(
            ticket,
            validFrom: validity?.from,
            validUntil: validity?.until,
            signer: store.signer,
            prefix: statusURL
        )
        return AppTicket(ticket: ticket, qr: qr, sequence: added.first?.sequence ?? 0)
    }
}
