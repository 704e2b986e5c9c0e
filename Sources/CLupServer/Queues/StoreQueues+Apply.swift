import KioskCore
import ServiceSupport

extension StoreQueues {
    /// Applies each event that is the next one of the store's log (others were applied already, or come after
    /// a gap) and wakes the store's waiters. True when `events` went past a gap.
    func apply(_ events: [StoreEvent], store: StoreID) -> Bool {
        var scored: [(told: WaitRange, waited: Duration)] = []
        var change = TicketIndex.Change()
        let (feed, behind) = live.withLock { stores -> (ChangeFeed?, Bool) in
            // In place: copying the entry out would copy the whole queue on every commit.
            guard let last = stores[store]?.lastSequence else { return (nil, false) }
            var next = last + 1
            for event in events where event.sequence == next {
                if stores[store] != nil {
                    if let score = change.apply(event, to: &stores[store]!) { scored.append(score) }
                    stores[store]!.recent.add(event)
                }
                next += 1
            }
            stores[store]?.lastSequence = next - 1
            // Under the queues' lock: whoever sees the new sequence finds its tickets in the index too (a
            // request waiting for its own write looks its ticket up as soon as the sequence is there).
            tickets.update(change, store: store)
            return (next - 1 > last ? stores[store]?.changes : nil, (events.last?.sequence ?? 0) >= next)
        }
        estimates.record(scored, store: store)
        feed?.notify()
        return behind
    }
}
