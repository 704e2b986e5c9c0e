import Foundation
import KioskCore
import ServiceSupport

extension ShopperDesk {
    /// Who asks for a ticket or a booking: the holder token they were given (nil: a new holder), their proof
    /// of work (``TicketWork``) and their client address.
    struct Shopper: Sendable {
        var token: String?
        var work: String?
        var address: String
    }

    struct Booking: Decodable, Sendable {
        /// Milliseconds since 1970: the start of one of the slots `GET …/slots` lists.
        var slotStart: Int64
        /// How long the customer expects to stay (R18, R20), 5 to 240 minutes; optional.
        var expectedVisitMinutes: Int?
    }

    /// A booking is valid from its slot's start to five minutes after (R19).
    static let lateness: Duration = .seconds(5 * 60)

    /// The proof of work a ticket or a booking at `store` costs now.
    func challenge(_ store: StoreID) async throws -> TicketWork.Challenge {
        _ = try await logs.require(store)
        return gate.work.challenge(store: store, at: logs.clock.now())
    }

    /// A virtual ticket at `store`'s line's end, once the ticket gate lets the shopper through.
    func takeTicket(at store: StoreID, for shopper: Shopper) async throws -> TicketStatus {
        let live = try await logs.require(store)
        return try await take(.app, at: live, for: shopper, at: logs.clock.now())
    }

    /// A booking of the slot that starts at `booking.slotStart` (R15–R20): a future slot of the store within
    /// the booking horizon that is not full; it holds a place at that time.
    func book(_ booking: Booking, at store: StoreID, for shopper: Shopper) async throws -> TicketStatus {
        let live = try await logs.require(store)
        if let minutes = booking.expectedVisitMinutes, !(5...240).contains(minutes) {
            throw Refusal.invalid("5 to 240 minutes", field: "expectedVisitMinutes")
        }
        let now = logs.clock.now()
        let horizon = Duration.seconds(Int64(bookingHorizonDays) * 86_400)
        // Range first: only then is the time safe to compute with.
        guard booking.slotStart > now.milliseconds, booking.slotStart <= (now + horizon).milliseconds else {
            throw Refusal.invalid(
                "a slot start within the next \(bookingHorizonDays) days (see …/slots)",
                field: "slotStart"
            )
        }
        let start = Timestamp(milliseconds: booking.slotStart)
        let profile = live.record.profile
        let localDay = BusinessDay(localDateOf: start, zone: profile.zone)
        guard
            let slot = Slots.of(day: localDay.number, profile: profile, booked: { _ in 0 }, now: now)
                .first(where: { $0.start == booking.slotStart })
        else {
            throw Refusal.invalid("not the start of a future slot of this store (see …/slots)", field: "slotStart")
        }
        let visit = BookingSlot(
            start: start,
            end: Timestamp(milliseconds: slot.end),
            expectedVisitMinutes: booking.expectedVisitMinutes
        )
        return try await take(.booking, at: live, slot: visit, for: shopper, at: now)
    }

    /// What rings after every change of ticket `id`'s store's queue, while the queue holds it.
    func feed(of id: TicketID) -> ChangeFeed? { logs.store(containing: id)?.changes }

    /// The ticket `id` is, while its store's queue holds it.
    func ticket(_ id: TicketID) -> Ticket? { logs.store(containing: id)?.state.entries[id]?.ticket }

    /// Cancels ticket `id` (its holder or its store's manager asked: the caller checked): a ticket waiting or in
    /// the printer leaves the line; a cancelled one answers as it is; a used or expired one cannot be.
    func cancel(_ id: TicketID) async throws -> TicketStatus {
        guard let live = logs.store(containing: id), let entry = live.state.entries[id] else {
            throw Refusal.notFound("ticket \(id)")
        }
        switch entry.stage {
        case .inPrinter, .waiting:
            try await logs.cancel(id, store: live.record.id, at: logs.clock.now())
        case .cancelled: break
        case .admitted: throw Refusal(.conflict, "the ticket was already used")
        case .expired: throw Refusal(.conflict, "the ticket has expired")
        }
        guard let status = status(of: id) else { throw Refusal.notFound("ticket \(id)") }
        return status
    }

    /// Issues an app ticket or a booking once the ticket gate lets the shopper through, and answers its status
    /// with the signed code and, for a shopper who came without one, a new holder token.
    private func take(
        _ kind: TicketKind,
        at live: StoreQueues.Live,
        slot: BookingSlot? = nil,
        for shopper: Shopper,
        at now: Timestamp
    ) async throws -> TicketStatus {
        let pass = try gate.admit(
            kind,
            store: live,
            token: shopper.token,
            work: shopper.work,
            address: shopper.address,
            at: now
        )
        var ticket: TicketID?
        defer { gate.finish(pass, ticket: ticket) }
        let issued = try await logs.issue(
            kind: kind,
            store: live.record.id,
            slot: slot,
            slotSize: slot == nil ? nil : live.record.profile.slotSize,
            validity: slot.map { ($0.start, $0.start + Self.lateness) },
            statusURL: statusURL,
            holder: pass.holder,
            at: now
        )
        ticket = issued.ticket.id
        guard var status = status(of: issued.ticket.id) else { throw Refusal.notFound("ticket") }
        status.qr = issued.qr
        status.holderToken = pass.newToken
        status.streamKey = gate.tokens.streamKey(for: issued.ticket.id)
        return status
    }
}
