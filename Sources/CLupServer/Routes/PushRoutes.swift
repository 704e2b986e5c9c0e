import Foundation
import Hummingbird
import KioskCore

/// Web Push for a ticket's holder (issue 49): the server's VAPID public key (`GET /v1/push/key`, the page's
/// `applicationServerKey`), and a ticket's subscription, given (`PUT /v1/tickets/{ticket}/push`) or ended
/// (`DELETE …`) only by the device that took the ticket (its `Clup-Holder`): the ticket id, or its page's code,
/// is never enough.
struct PushRoutes {
    let push: PushDesk
    let page: TicketPage

    struct Key: ResponseEncodable {
        var publicKey: String
    }

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("v1/push/key") { _, _ -> Key in Key(publicKey: push.vapid.publicKey) }
        router.put("v1/tickets/:ticket/push") { request, context -> Response in
            let id = try context.parameters.require("ticket", as: UUID.self)
            try requireHolder(request, of: id)
            let body = try await request.decode(PushDesk.Subscribing.self, limit: 4096)
            try await requirePage(body.page, of: id)
            try await push.subscribe(body, ticket: id)
            return Response(status: .noContent)
        }
        router.delete("v1/tickets/:ticket/push") { request, context -> Response in
            let id = try context.parameters.require("ticket", as: UUID.self)
            try requireHolder(request, of: id)
            guard try await push.unsubscribe(ticket: id) else { throw Refusal.notFound("push subscription") }
            return Response(status: .noContent)
        }
    }

    private func requireHolder(_ request: Request, of id: TicketID) throws(Refusal) {
        try HolderCheck.require(request, of: id, desk: push.desk, to: "be notified about it")
    }

    /// `path` is this ticket's page: `/<segment>/<its signed code>`.
    private func requirePage(_ path: String, of id: TicketID) async throws(Refusal) {
        let prefix = "/\(page.pages.segment)/"
        guard path.hasPrefix(prefix), let claims = await page.verified(String(path.dropFirst(prefix.count))),
            claims.ticket == id
        else {
            throw Refusal.invalid("the ticket's own page, \(prefix)<its code>", field: "page")
        }
    }
}
