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
    let logs: StoreLogs
    let statusURL: String
    let gate: TicketGate
    let auth: Authenticator
    let clients: ClientAddress
    let streams = OpenStreams()

    struct Nearby: ResponseEncodable {
        var stores: [StoreSummary]
    }

    struct StoreSummary: ResponseEncodable {
        var id: StoreID
        var name: String
        var address: String
        var location: StoreProfile.Location
        /// From the point searched near; absent for a search by name.
        var distanceKm: Double?
        var capacity: Int
        var inside: Int
        var waiting: Int
        /// For a ticket taken now (while closed: counted to its call after the opening), and the range it
        /// falls in four times out of five.
        var estimatedWaitSeconds: Int
        var estimatedWaitLowSeconds: Int
        var estimatedWaitHighSeconds: Int
        /// Whether the store is open now (nobody is called while it is closed).
        var open: Bool
        /// While closed: when it opens, and from when it hands out virtual tickets (ms since 1970).
        var opensAt: Int64?
        var ticketsFrom: Int64?
    }

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("v1/stores") { request, _ -> Nearby in
            Nearby(stores: try stores(for: StoreSearch(request)))
        }
        router.get("v1/stores/:store/work") { _, context -> TicketWork.Challenge in
            let store = try context.parameters.require("store", as: UUID.self)
            _ = try await logs.require(store)
            return gate.work.challenge(store: store, at: logs.clock.now())
        }
        router.post("v1/stores/:store/tickets") { request, context -> EditedResponse<TicketStatus> in
            let store = try context.parameters.require("store", as: UUID.self)
            let live = try await logs.require(store)
            let now = logs.clock.now()
            let (issued, newToken) = try await gate.issue(
                .app,
                store: live,
                token: request.headers[HolderTokens.field],
                work: request.headers[TicketWork.field],
                address: clients.of(request, peer: context.remoteAddress),
                at: now
            ) { holder in
                try await logs.issue(kind: .app, store: store, statusURL: statusURL, holder: holder, at: now)
            }
            guard var status = status(of: issued.ticket.id) else { throw APIError.notFound("ticket") }
            status.qr = issued.qr
            status.holderToken = newToken
            return EditedResponse(status: .created, response: status)
        }
        router.get("v1/tickets/:ticket") { _, context -> TicketStatus in
            let id = try context.parameters.require("ticket", as: UUID.self)
            guard let status = status(of: id) else { throw APIError.notFound("ticket \(id)") }
            return status
        }
        router.get("v1/tickets/:ticket/events") { request, context -> Response in
            let id = try context.parameters.require("ticket", as: UUID.self)
            guard let live = logs.store(containing: id) else { throw APIError.notFound("ticket \(id)") }
            let address = clients.of(request, peer: context.remoteAddress)
            // The holder's own stream (its token as a header, or as `holder=` from a page's EventSource, which
            // cannot send headers) has places strangers cannot take.
            let token = request.headers[HolderTokens.field] ?? request.uri.queryParameters["holder"].map(String.init)
            let own = token.flatMap(gate.tokens.holder).map { gate.holders.holder(of: id) == $0 } ?? false
            guard let keys = streams.open(address: address, ticket: id.uuidString, holder: own) else {
                throw APIError(
                    .tooManyRequests,
                    "too many open status streams for this ticket or from your address — close one, or follow "
                        + "the ticket with GET /v1/tickets/{id}",
                    retryAfter: 30
                )
            }
            let slot = StreamSlot { streams.close(keys) }
            return events(of: id, feed: live.changes, slot: slot)
        }
        router.delete("v1/tickets/:ticket") { request, context -> TicketStatus in
            let id = try context.parameters.require("ticket", as: UUID.self)
            guard let live = logs.store(containing: id), let entry = live.state.entries[id] else {
                throw APIError.notFound("ticket \(id)")
            }
            try await authorizeCancel(id, of: entry.ticket, request: request, from: context.remoteAddress)
            switch entry.stage {
            case .inPrinter, .waiting: break
            case .cancelled:
                if let status = status(of: id) { return status }
            case .admitted: throw APIError(.conflict, "the ticket was already used")
            case .expired: throw APIError(.conflict, "the ticket has expired")
            }
            let now = logs.clock.now()
            let event = StoreEvent.new(
                .ticketCancelled(id),
                store: live.record.id,
                device: ServerIssue.device,
                at: now
            )
            _ = try await logs.append([event], store: live.record.id)
            guard let status = status(of: id) else { throw APIError.notFound("ticket \(id)") }
            return status
        }
    }

    /// Only who took a ticket may cancel it (its holder token), or a manager of its store; paper tickets have
    /// no holder. The ticket id alone, or anything in the QR, is never enough.
    func authorizeCancel(
        _ id: TicketID,
        of ticket: Ticket,
        request: Request,
        from peer: SocketAddress?
    ) async throws(APIError) {
        if let token = request.headers[HolderTokens.field] {
            guard let holder = gate.tokens.holder(token) else {
                throw APIError(.unauthorized, "unknown holder token", field: HolderTokens.header)
            }
            guard gate.holders.holder(of: id) == holder else {
                throw APIError(.forbidden, "only the device that took this ticket can cancel it")
            }
            return
        }
        guard request.bearerToken != nil else {
            throw APIError(
                .unauthorized,
                "cancelling needs the \(HolderTokens.header) header of the device that took the ticket "
                    + "(or a manager of the store)"
            )
        }
        try await auth.requireManager(request, from: peer, of: ticket.store)
    }

    func status(of id: TicketID) -> TicketStatus? {
        guard let live = logs.store(containing: id) else { return nil }
        return TicketStatus(id, in: live, at: logs.clock.now())
    }

    /// The ticket's status as server-sent events: now and after every change of its store's queue, until it
    /// is used, expires or is cancelled (then one last event), the client goes, or the server stops. The
    /// stream's `slot` is given back when it ends (or when the answer is dropped unsent).
    func events(of id: TicketID, feed: ChangeFeed, slot: StreamSlot) -> Response {
        let updates = feed.subscribe()
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
            body: ResponseBody { writer in
                defer { slot.end() }
                let encoder = JSONEncoder()
                var previous: TicketStatus?
                for await _ in updates.cancelOnGracefulShutdown() {
                    guard let status = status(of: id) else { break }
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

    /// The stores a search finds, nearest first (a search by name: by name), at most 50, each with its
    /// line now and the wait for a ticket taken now. The API's store list and the start page both show this.
    func stores(for search: StoreSearch) -> [StoreSummary] {
        let now = logs.clock.now()
        let found = logs.all.compactMap { live -> StoreSummary? in
            let profile = live.record.profile
            var distance: Double?
            if let point = search.point {
                let km = Self.distanceKm(
                    point.latitude,
                    point.longitude,
                    profile.location.latitude,
                    profile.location.longitude
                )
                guard km <= search.radiusKm else { return nil }
                distance = (km * 100).rounded() / 100
            }
            if let words = search.words, !StoreSearch.matches(words, profile) { return nil }
            let state = live.state
            var opens: Timestamp?
            var from: Timestamp?
            if case .closed(_, let o, let f) = profile.calendar.phase(at: now) {
                opens = o
                from = f
            }
            let wait = live.wait(position: state.lineLength(at: now), at: now)
            return StoreSummary(
                id: live.record.id,
                name: profile.name,
                address: profile.address,
                location: profile.location,
                distanceKm: distance,
                capacity: state.capacity,
                inside: state.inside,
                waiting: state.waitingCount,
                estimatedWaitSeconds: Self.seconds(wait.point),
                estimatedWaitLowSeconds: Self.seconds(wait.low),
                estimatedWaitHighSeconds: Self.seconds(wait.high),
                open: opens == nil,
                opensAt: opens?.milliseconds,
                ticketsFrom: from?.milliseconds
            )
        }
        let sorted = found.sorted {
            ($0.distanceKm ?? 0, $0.name, $0.id.uuidString) < ($1.distanceKm ?? 0, $1.name, $1.id.uuidString)
        }
        return Array(sorted.prefix(StoreSearch.maxResults))
    }

    static func seconds(_ duration: Duration) -> Int { Int(duration.components.seconds) }

    /// Great-circle distance (haversine), kilometres.
    static func distanceKm(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians
        let dLon = (lon2 - lon1) * radians
        let a =
            sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 6371 * 2 * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}

/// What the app shows for a ticket.
struct TicketStatus: ResponseEncodable, Equatable {
    struct Info: Codable, Equatable {
        var id: TicketID
        var code: String
        var kind: String
        var issuedAt: Int64
        var slotStart: Int64?
        var slotEnd: Int64?
        var expectedVisitMinutes: Int?
    }

    var ticket: Info
    /// `printing` (paper, still in the printer), `booked` (a booking before its slot), `waiting`, `called`
    /// (go to the door now), `admitted`, `expired` or `cancelled`.
    var stage: String
    var peopleAhead: Int?
    /// Until the ticket is called (``WaitEstimator``), and the range it falls in four times out of five.
    var estimatedWaitSeconds: Int?
    var estimatedWaitLowSeconds: Int?
    var estimatedWaitHighSeconds: Int?
    /// While the store is closed: when it opens (ms since 1970); the ticket is called from then, in line order.
    var opensAt: Int64?
    /// The signed code to show at the door; only in the answer that creates the ticket.
    var qr: String?
    /// A new holder token, when the request that created the ticket came without one: the device keeps it
    /// and sends it as `Clup-Holder` with its next tickets and to cancel.
    var holderToken: String?

    init?(_ id: TicketID, in live: StoreLogs.Live, at now: Timestamp) {
        let state = live.state
        guard let entry = state.entries[id] else { return nil }
        let t = entry.ticket
        ticket = Info(
            id: t.id,
            code: t.code.description,
            kind: ["paper", "app", "booking"][Int(t.kind.rawValue)],
            issuedAt: t.issuedAt.milliseconds,
            slotStart: t.slot?.start.milliseconds,
            slotEnd: t.slot?.end.milliseconds,
            expectedVisitMinutes: t.slot?.expectedVisitMinutes
        )
        switch entry.stage {
        case .inPrinter: stage = "printing"
        case .admitted: stage = "admitted"
        case .expired: stage = "expired"
        case .cancelled: stage = "cancelled"
        case .waiting(let joined) where joined > now:
            stage = "booked"  // a booking before its slot: it joins the line when the slot starts
        case .waiting:
            let position = state.position(of: id, at: now)
            let ahead = position ?? state.lineLength(at: now)
            peopleAhead = ahead
            stage = state.isCalled(id, at: now) ? "called" : "waiting"
            opensAt = state.opensAt(after: now)?.milliseconds
            let wait = live.wait(position: ahead, at: now)
            estimatedWaitSeconds = AppRoutes.seconds(wait.point)
            estimatedWaitLowSeconds = AppRoutes.seconds(wait.low)
            estimatedWaitHighSeconds = AppRoutes.seconds(wait.high)
        }
    }
}
extension TicketWork.Challenge: ResponseEncodable {}
