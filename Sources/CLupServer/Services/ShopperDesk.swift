import Foundation
import KioskCore

/// What shoppers ask of the stores, for the API's routes and the shopper pages alike (routes call it, never
/// each other): the stores a search finds with their line and wait now, a ticket's status, a day's slots, and
/// taking, booking and cancelling with their rules (`ShopperDesk+Tickets.swift`).
struct ShopperDesk: Sendable {
    let logs: StoreQueues
    /// The limits a shopper's ticket or booking passes (and the booking horizon).
    let gate: TicketGate
    /// What starts every ticket's QR: the server's public address of ticket pages.
    let statusURL: String
    /// The store's kiosks, asked before a holder's journey is written (an old kiosk must not stop at it).
    var fleet: Fleet? = nil

    /// How many days ahead a visit can be booked.
    var bookingHorizonDays: Int { gate.limits.bookingHorizonDays }

    struct Day: Encodable, Sendable {
        var date: String
        var slotMinutes: Int
        var slots: [Slots.Slot]
    }

    struct Nearby: Encodable, Sendable {
        var stores: [StoreSummary]
    }

    struct StoreSummary: Encodable, Sendable {
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

    /// A ticket's status now; with the holder's journey, when to leave too.
    func status(of id: TicketID, journeyMinutes: Int? = nil) -> TicketStatus? {
        guard let live = logs.store(containing: id) else { return nil }
        let now = logs.clock.now()
        guard var status = TicketStatus(id, in: live, at: now) else { return nil }
        if let journeyMinutes { status.planLeaving(journeyMinutes: journeyMinutes, at: now) }
        return status
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

    /// The slots of the store's local `date` (`YYYY-MM-DD`, yesterday to the booking horizon) with the places
    /// left in each; the API's slot list and the booking page both show this.
    func day(_ store: StoreID, date: String?) async throws(Refusal) -> Day {
        try day(try await logs.require(store), date: date)
    }

    func day(_ live: StoreQueues.Live, date: String?) throws(Refusal) -> Day {
        guard let date, let day = Slots.day(date) else {
            throw Refusal.invalid("the store's local date as YYYY-MM-DD", field: "date")
        }
        let now = logs.clock.now()
        let today = BusinessDay(localDateOf: now, zone: live.record.profile.zone).number
        guard (today - 1...today + Int64(bookingHorizonDays)).contains(day) else {
            throw Refusal.invalid(
                "visits can be booked up to \(bookingHorizonDays) days ahead",
                field: "date"
            )
        }
        let slots = Slots.of(
            day: day,
            profile: live.record.profile,
            booked: { [counts = Slots.bookedCounts(live.state)] in counts[$0, default: 0] },
            now: now
        )
        return Day(date: date, slotMinutes: live.record.profile.slotMinutes, slots: slots)
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
