import Hummingbird
import KioskCore

/// What a ticket's holder alone may do (be notified, tell its journey) starts here: the ticket exists (404), and
/// the request carries the holder token of the device that took it (401 without one, 403 with another's).
enum HolderCheck {
    static func require(_ request: Request, of id: TicketID, desk: ShopperDesk, to purpose: String) throws(Refusal) {
        guard desk.ticket(id) != nil else { throw Refusal.notFound("ticket \(id)") }
        guard let token = request.headers[HolderTokens.field] else {
            throw Refusal(
                .unauthorized,
                "only the device that took the ticket may \(purpose): send its \(HolderTokens.header) header",
                field: HolderTokens.header
            )
        }
        try desk.gate.requireHolder(token, of: id, to: purpose)
    }
}
