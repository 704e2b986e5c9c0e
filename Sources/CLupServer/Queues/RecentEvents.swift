import DequeModule
import KioskCore
import Synchronization

/// The last events of a store's log this replica applied, in order and without a gap: a kiosk's long-poll is
/// answered from here, and the database read only for what came before them (a kiosk far behind, or a
/// replica just started). Bounded: at most ``capacity`` events, the oldest leaving first — 128 by default, about
/// 36 KB of a busy store (an event is 280 bytes here, more for long texts), since a kiosk that keeps up is a
/// handful of events behind.
final class RecentEvents: Sendable {
    static let defaultCapacity = 128

    let capacity: Int
    /// Each with its sequence (every applied event has one).
    private let events = Mutex<Deque<(sequence: Int64, event: StoreEvent)>>([])

    init(capacity: Int = defaultCapacity) {
        self.capacity = max(1, capacity)
    }

    /// Takes `event`, applied next (the queues apply a store's events in order, under their lock); one that does
    /// not follow the last begins the ring again.
    func add(_ event: StoreEvent) {
        guard let sequence = event.sequence else { return }
        events.withLock { events in
            if let last = events.last, last.sequence != sequence - 1 { events.removeAll() }
            events.append((sequence, event))
            if events.count > capacity { events.removeFirst() }
        }
    }

    /// The events after `sequence`, at most `limit`, when this holds every one of them; nil when it begins
    /// later than `sequence + 1` (or holds nothing): the caller reads the database.
    func after(_ sequence: Int64, limit: Int) -> [StoreEvent]? {
        events.withLock { events -> [StoreEvent]? in
            guard let first = events.first, let last = events.last else { return nil }
            if sequence >= last.sequence { return [] }
            // Compared before any arithmetic on `sequence` (a client's number, up to Int64.max).
            guard sequence >= first.sequence - 1 else { return nil }
            let start = Int(sequence - (first.sequence - 1))
            return events[start..<(start + min(events.count - start, max(0, limit)))].map(\.event)
        }
    }
}
