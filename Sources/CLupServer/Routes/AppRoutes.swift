import Foundation
import Hummingbird
import KioskCore
import NIOCore
import ServiceSupport

/// The customer app's API: stores near a point (R1), virtual tickets (R2, R3) with their position and
/// estimated wait (R11, R13) and live updates (R14), cancelling. No personal data: a ticket's id is public
/// (it is in its QR) and shows its status; acting on a ticket takes the anonymous holder token of the device
/// that took it (``HolderTokens``), or a manager of its store.
struct AppRoutes {
    let desk: ShopperDesk
    let auth: Authenticator
    let clients: ClientAddress
    let streams = OpenStreams()

    var gate: TicketGate { desk.gate }

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("v1/stores") { request, _ -> ShopperDesk.Nearby in
            ShopperDesk.Nearby(stores: try desk.stores(for: StoreSearch(request, onlySearch: true)))
        }
        router.get("v1/stores/:store/work") { _, context -> TicketWork.Challenge in
            try await desk.challenge(try context.parameters.require("store", as: UUID.self))
        }
        router.post("v1/stores/:store/tickets") { request, context -> EditedResponse<TicketStatus> in
            let store = try context.parameters.require("store", as: UUID.self)
            let status = try await desk.takeTicket(at: store, for: clients.shopper(request, context))
            return EditedResponse(status: .created, response: status)
        }
        router.get("v1/tickets/:ticket") { request, context -> TicketStatus in
            let id = try context.parameters.require("ticket", as: UUID.self)
            let journey = try TicketStatus.journey(of: request)
            guard var status = desk.status(of: id, journeyMinutes: journey) else {
                throw Refusal.notFound("ticket \(id)")
            }
            if isHolder(request, of: id) { status.streamKey = gate.tokens.streamKey(for: id) }
            return status
        }
        router.get("v1/tickets/:ticket/events") { request, context -> Response in
            let id = try context.parameters.require("ticket", as: UUID.self)
            let journey = try TicketStatus.journey(of: request)
            guard let feed = desk.feed(of: id) else { throw Refusal.notFound("ticket \(id)") }
            let address = clients.of(request, peer: context.remoteAddress)
            // The holder's own stream (its token as a header, or its stream key as `key=` from a page's
            // EventSource, which cannot send headers) has places strangers cannot take.
            let key = request.uri.queryParameters["key"].map(String.init)
            if let key, key.utf8.count > MACToken.longest {
                throw Refusal.invalid("a stream key is at most \(MACToken.longest) characters", field: "key")
            }
            let own = isHolder(request, of: id) || key.map { gate.tokens.opensStream($0, of: id) } == true
            guard let keys = streams.open(address: address, ticket: id.uuidString, holder: own) else {
                throw Refusal(
                    .tooMany,
                    "too many open status streams for this ticket or from your address — close one, or follow "
                        + "the ticket with GET /v1/tickets/{id}",
                    retryAfter: 30
                )
            }
            let slot = StreamSlot { streams.close(keys) }
            return events(of: id, journeyMinutes: journey, feed: feed, slot: slot)
        }
        router.put("v1/tickets/:ticket/journey") { request, context -> ShopperDesk.JourneyTold in
            let id = try context.parameters.require("ticket", as: UUID.self)
            try HolderCheck.require(request, of: id, desk: desk, to: "tell its journey")
            return try await desk.tellJourney(
                try await request.decode(ShopperDesk.Journey.self, limit: 4096),
                ticket: id
            )
        }
        router.delete("v1/tickets/:ticket") { request, context -> TicketStatus in
            let id = try context.parameters.require("ticket", as: UUID.self)
            guard let ticket = desk.ticket(id) else { throw Refusal.notFound("ticket \(id)") }
            try await authorizeCancel(id, of: ticket, request: request, from: context.remoteAddress)
            return try await desk.cancel(id)
        }
    }

    /// Whether the request carries the holder token of the device that took ticket `id`.
    func isHolder(_ request: Request, of id: TicketID) -> Bool {
        guard let token = request.headers[HolderTokens.field] else { return false }
        return (try? gate.requireHolder(token, of: id, to: "read its stream key")) != nil
    }

    /// Only who took a ticket may cancel it (its holder token), or a manager of its store; paper tickets have
    /// no holder. The ticket id alone, or anything in the QR, is never enough.
    func authorizeCancel(
        _ id: TicketID,
        of ticket: Ticket,
        request: Request,
        from peer: SocketAddress?
    ) async throws(Refusal) {
        if let token = request.headers[HolderTokens.field] {
            return try gate.requireHolder(token, of: id, to: "cancel it")
        }
        guard request.bearerToken != nil else {
            throw Refusal(
                .unauthorized,
                "cancelling needs the \(HolderTokens.header) header of the device that took the ticket "
                    + "(or a manager of the store)"
            )
        }
        try await auth.requireManager(request, from: peer, of: ticket.store)
    }

    /// The ticket's status as server-sent events: now and after every change of its store's queue, until it
    /// is used, expires or is cancelled (then one last event), the client goes, or the server stops. The
    /// stream's `slot` is given back when it ends (or when the answer is dropped unsent). With the holder's
    /// journey, each status says when to leave.
    func events(of id: TicketID, journeyMinutes: Int?, feed: ChangeFeed, slot: StreamSlot) -> Response {
        let updates = feed.subscribe()
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
            body: ResponseBody { writer in
                defer { slot.end() }
                let encoder = JSONEncoder()
                var previous: TicketStatus?
                for await _ in updates.cancelOnGracefulShutdown() {
                    guard let status = desk.status(of: id, journeyMinutes: journeyMinutes) else { break }
                    if status != previous {
                        var buffer = ByteBuffer(string: "event: status\ndata: ")
                        buffer.writeBytes(try encoder.encode(status))
                        buffer.writeString("\n\n")
                        try await writer.write(buffer)
                        previous = status
                    } else {
                        // The heartbeat: a comment line, so a dead connection is noticed and proxies keep it.
                        try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                    }
                    if ["admitted", "expired", "cancelled"].contains(status.stage) { break }
                }
                try await writer.finish(nil)
            }
        )
    }
}
