import Foundation
import Hummingbird
import KioskCore

/// Booking a visit (R15–R20): `GET /v1/stores/{store}/slots`, the free slots of a day, and `POST …/bookings`,
/// a booking that is valid from its slot's start to five minutes after (R19) and holds a place at that time
/// (the rules are the ``ShopperDesk``'s).
struct BookingRoutes {
    let desk: ShopperDesk
    let clients: ClientAddress

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("v1/stores/:store/slots") { request, context -> ShopperDesk.Day in
            let store = try context.parameters.require("store", as: UUID.self)
            return try await desk.day(store, date: request.uri.queryParameters["date"].map(String.init))
        }
        router.post("v1/stores/:store/bookings") { request, context -> EditedResponse<TicketStatus> in
            let store = try context.parameters.require("store", as: UUID.self)
            let booking = try await request.decode(ShopperDesk.Booking.self)
            let status = try await desk.book(booking, at: store, for: clients.shopper(request, context))
            return EditedResponse(status: .created, response: status)
        }
    }
}

extension ClientAddress {
    /// Who asks, as the ``ShopperDesk`` knows them: the holder token and proof of work they sent, and their
    /// address.
    func shopper(_ request: Request, _ context: ServerContext) -> ShopperDesk.Shopper {
        ShopperDesk.Shopper(
            token: request.headers[HolderTokens.field],
            work: request.headers[TicketWork.field],
            address: of(request, peer: context.remoteAddress)
        )
    }
}
