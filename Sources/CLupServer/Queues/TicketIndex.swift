import Foundation
import KioskCore
import Synchronization

/// Which store each ticket in memory belongs to, so that a ticket's status, stream or cancel finds its store by
/// one look-up rather than by asking every store's queue in turn. It holds the tickets the stores' queues hold:
/// a ticket is added as its store's queue takes it, and removed when the queue forgets it at a day's start.
/// The first store to take an id keeps it (appends refuse an id another store's log names).
final class TicketIndex: Sendable {
    private let stores = Mutex<[TicketID: StoreID]>([:])

    func store(of ticket: TicketID) -> StoreID? { stores.withLock { $0[ticket] } }

    func update(_ change: Change, store: StoreID) {
        guard !change.isEmpty else { return }
        stores.withLock { index in
            for id in change.forgotten where index[id] == store { index[id] = nil }
            for id in change.taken where index[id] == nil { index[id] = store }
        }
    }

    /// What applying events to a store's queue did to the tickets it holds.
    struct Change {
        var taken: [TicketID] = []
        var forgotten: [TicketID] = []

        var isEmpty: Bool { taken.isEmpty && forgotten.isEmpty }

        /// Applies `event` to `live` and notes the ticket it took, or those a day's start made it forget.
        mutating func apply(
            _ event: StoreEvent,
            to live: inout StoreQueues.Live
        ) -> (told: WaitRange, waited: Duration)? {
            let held = event.isDayStart ? live.state.entries.values.map(\.ticket.id) : []
            let scored = live.apply(event)
            if case .ticketIssued(let ticket, _) = event.body,
                live.state.entries[ticket.id]?.ticket.store == live.record.id
            {
                taken.append(ticket.id)
            }
            forgotten += held.filter { live.state.entries[$0] == nil }
            return scored
        }

        /// Every ticket a queue holds (a store folded at the start).
        static func all(of state: QueueState) -> Change { Change(taken: state.entries.values.map(\.ticket.id)) }
    }
}

extension StoreEvent {
    fileprivate var isDayStart: Bool {
        if case .dayStarted = body { true } else { false }
    }
}
