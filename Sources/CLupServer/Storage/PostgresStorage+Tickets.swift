import Foundation
import KioskCore
import PostgresNIO

extension PostgresStorage {
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
        let day = store.profile.calendar.businessDay(at: now)
        let work = PostgresCommits.Issue(
            kind: kind,
            store: store.id,
            slot: slot,
            told: told,
            holder: holder,
            day: day.number,
            now: now
        )
        guard
            case .issued(let ticket, let sequence) = try await commits.submit(
                .issue(work),
                store: store.id,
                check: check,
                onCommit: onCommit
            )
        else { throw StorageFailure(description: "an issue came back as an append") }
        // Signed outside the transaction: signatures of concurrent requests do not hold the store's row.
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
