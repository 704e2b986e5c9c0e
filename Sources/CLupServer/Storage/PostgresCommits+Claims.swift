import Foundation
import KioskCore
import PostgresNIO

extension PostgresCommits {
    /// The stores that issued the ticket ids the batch's new `ticketIssued` events name (``IssuedTickets``).
    func claims(
        _ batch: [Waiting],
        known: [EventID: Int64],
        on connection: PostgresConnection
    ) async throws -> [TicketID: StoreID] {
        let tickets = batch.flatMap(\.events).filter { known[$0.id] == nil }.compactMap(IssuedTickets.ticket(issuedBy:))
        var claims: [TicketID: StoreID] = [:]
        guard !tickets.isEmpty else { return claims }
        for try await (ticket, store) in try await connection.query(
            "SELECT ticket, store FROM issued_tickets WHERE ticket = ANY(\(tickets))",
            logger: logger
        ).decode((UUID, UUID).self) {
            claims[ticket] = store
        }
        return claims
    }

    /// Why a piece's `events` cannot be appended to `store`: a new one issues a ticket id another store issued.
    static func claimedElsewhere(
        _ events: [StoreEvent],
        known: [EventID: Int64],
        claims: [TicketID: StoreID],
        store: StoreID
    ) -> StorageRefusal? {
        for (index, event) in events.enumerated() where known[event.id] == nil {
            if let ticket = IssuedTickets.ticket(issuedBy: event), let owner = claims[ticket], owner != store {
                return .ticketOfAnotherStore(ticket, index: index)
            }
        }
        return nil
    }

    /// The ticket ids the new events issue that no claim holds yet, each once.
    static func unclaimed(_ added: [StoreEvent], claims: [TicketID: StoreID]) -> [(ticket: TicketID, at: Timestamp)] {
        var seen: Set<TicketID> = []
        return added.compactMap { event in
            guard let ticket = IssuedTickets.ticket(issuedBy: event), claims[ticket] == nil,
                seen.insert(ticket).inserted
            else { return nil }
            return (ticket, event.time)
        }
    }
}
