import Hummingbird
import KioskCore
import Synchronization

/// Which holder took which app ticket or booking, and the rules a holder is held to: one live virtual
/// ticket per store, at most `maxBookings` bookings not used yet. Written to the database with the ticket
/// (``ServerStorage/issue(kind:store:slot:validity:statusURL:holder:at:check:onCommit:)``); this is the
/// in-memory index of the live ones, rebuilt at start.
///
/// A holder's next ticket is checked and reserved in one step (``begin(_:kind:store:live:)``) and released
/// when the issue ends, so two requests at once from one holder cannot both pass.
final class Holders: Sendable {
    private struct State {
        var tickets: [Holder: Set<TicketID>] = [:]
        var holderOf: [TicketID: Holder] = [:]
        var issuing: Set<Holder> = []
    }

    /// Bookings a holder may hold at once (not used, cancelled or expired), all stores together.
    let maxBookings: Int
    private let state = Mutex(State())

    init(maxBookings: Int, owned: [(TicketID, Holder)] = []) {
        self.maxBookings = maxBookings
        state.withLock { state in
            for (ticket, holder) in owned { Self.record(ticket, holder, in: &state) }
        }
    }

    /// Checks that `holder` may take a ticket of `kind` at `store` and reserves the attempt; `live` gives a
    /// ticket of the holder that is still live (waiting, called, booked, in a printer), nil otherwise. Every
    /// successful `begin` must be followed by one ``finish(_:ticket:)``.
    func begin(
        _ holder: Holder,
        kind: TicketKind,
        store: StoreID,
        live: (TicketID) -> Ticket?
    ) throws(Refusal) {
        try state.withLock { state throws(Refusal) in
            guard !state.issuing.contains(holder) else {
                throw Refusal(.conflict, "this device is already taking a ticket — wait for its answer")
            }
            let owned = state.tickets[holder] ?? []
            let stillLive = owned.compactMap(live)
            // Forget what is over: the index holds live tickets only.
            for id in owned where !stillLive.contains(where: { $0.id == id }) {
                state.tickets[holder]?.remove(id)
                state.holderOf[id] = nil
            }
            if state.tickets[holder]?.isEmpty == true { state.tickets[holder] = nil }
            switch kind {
            case .app:
                if let ticket = stillLive.first(where: { $0.kind == .app && $0.store == store }) {
                    throw Refusal(
                        .conflict,
                        "this device already holds ticket \(ticket.code) for this store — cancel it to take another",
                        field: "ticket"
                    )
                }
            case .booking:
                if stillLive.count(where: { $0.kind == .booking }) >= maxBookings {
                    throw Refusal(
                        .conflict,
                        "this device already holds \(maxBookings) bookings — cancel one to book another"
                    )
                }
            case .paper:
                break
            }
            state.issuing.insert(holder)
        }
    }

    /// Ends an attempt `begin` reserved: `ticket` is what was issued, nil if nothing was.
    func finish(_ holder: Holder, ticket: TicketID?) {
        state.withLock { state in
            state.issuing.remove(holder)
            if let ticket { Self.record(ticket, holder, in: &state) }
        }
    }

    /// The holder of a live app ticket or booking (nil for paper tickets, and tickets that are over).
    func holder(of ticket: TicketID) -> Holder? {
        state.withLock { $0.holderOf[ticket] }
    }

    /// Forgets every ticket that is over (`isLive` false): holders who never come back leave nothing behind.
    func forgetOver(isLive: (TicketID) -> Bool) {
        state.withLock { state in
            for (ticket, holder) in state.holderOf where !isLive(ticket) {
                state.holderOf[ticket] = nil
                state.tickets[holder]?.remove(ticket)
                if state.tickets[holder]?.isEmpty == true { state.tickets[holder] = nil }
            }
        }
    }

    var count: Int { state.withLock { $0.holderOf.count } }

    private static func record(_ ticket: TicketID, _ holder: Holder, in state: inout State) {
        state.tickets[holder, default: []].insert(ticket)
        state.holderOf[ticket] = holder
    }
}
