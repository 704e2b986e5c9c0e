import Foundation
import Hummingbird
import KioskCore

/// Booking a visit (R15–R20): the free slots of a day, and a booking that is valid from its slot's start to
/// five minutes after (R19) and holds a place at that time.
struct BookingRoutes {
    let desk: ShopperDesk
    let clients: ClientAddress

    var logs: StoreQueues { desk.logs }
    var horizon: Duration { .seconds(Int64(desk.bookingHorizonDays) * 86_400) }

    struct Booking: Decodable {
        /// Milliseconds since 1970: the start of one of the slots `GET …/slots` lists.
        var slotStart: Int64
        /// How long the customer expects to stay (R18, R20), 5 to 240 minutes; optional.
        var expectedVisitMinutes: Int?
    }

    static let lateness: Duration = .seconds(5 * 60)

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("v1/stores/:store/slots") { request, context -> ShopperDesk.Day in
            let store = try context.parameters.require("store", as: UUID.self)
            let live = try await logs.require(store)
            return try desk.day(live, date: request.uri.queryParameters["date"].map(String.init))
        }
        router.post("v1/stores/:store/bookings") { request, context -> EditedResponse<TicketStatus> in
            let store = try context.parameters.require("store", as: UUID.self)
            let live = try await logs.require(store)
            let booking = try await request.decode(Booking.self)
            if let minutes = booking.expectedVisitMinutes, !(5...240).contains(minutes) {
                throw Refusal.invalid("5 to 240 minutes", field: "expectedVisitMinutes")
            }
            let now = logs.clock.now()
            // Range first: only then is the time safe to compute with.
            guard booking.slotStart > now.milliseconds, booking.slotStart <= (now + horizon).milliseconds else {
                throw Refusal.invalid(
                    "a slot start within the next \(desk.bookingHorizonDays) days (see …/slots)",
                    field: "slotStart"
                )
            }
            let start = Timestamp(milliseconds: booking.slotStart)
            let profile = live.record.profile
            let localDay = BusinessDay(localDateOf: start, zone: profile.zone)
            let slot = Slots.of(day: localDay.number, profile: profile, booked: { _ in 0 }, now: now)
                .first { $0.start == booking.slotStart }
            guard let slot else {
                throw Refusal.invalid(
                    "not the start of a future slot of this store (see …/slots)",
                    field: "slotStart"
                )
            }
            let status = try await desk.take(
                .booking,
                store: live,
                token: request.headers[HolderTokens.field],
                work: request.headers[TicketWork.field],
                address: clients.of(request, peer: context.remoteAddress),
                at: now
            ) { holder in
                try await logs.issue(
                    kind: .booking,
                    store: store,
                    slot: BookingSlot(
                        start: start,
                        end: Timestamp(milliseconds: slot.end),
                        expectedVisitMinutes: booking.expectedVisitMinutes
                    ),
                    validity: (start, start + Self.lateness),
                    statusURL: desk.statusURL,
                    holder: holder,
                    at: now
                ) { [logs] in
                    guard let state = logs.store(store)?.state else { return }
                    if Slots.booked(state, start: start) >= profile.slotSize {
                        throw Refusal(.conflict, "this slot is fully booked — choose another", field: "slotStart")
                    }
                }
            }
            return EditedResponse(status: .created, response: status)
        }
    }
}
