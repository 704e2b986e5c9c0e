import DequeModule
import NIOCore
import Synchronization

/// The open connections: how many in all, per client address (IPv6 by its /64) and per address group (IPv6
/// by its /48, where a /56 or /48 of one site would otherwise count as 256 or 65,536 clients), and which of
/// them sit idle (no request in flight, no answer being sent), longest idle first.
///
/// The total is never a wall that idle connections can fill: from `total - headroom` on, each new connection
/// closes the longest-idle one, so a crowd of addresses holding keep-alive connections open makes room for
/// everyone else instead of locking them out (a client whose idle connection is closed opens a new one). A
/// connection that is working (a request, a long-poll, a status stream) is never shed; those are bounded by
/// their own limits. Only when every connection is working and the total is reached is a new one refused.
final class ConnectionCounts: Sendable {
    let limits: ConnectionLimits
    let clients: ClientAddress

    private struct Entry {
        let channel: any Channel
        let address: String
        let group: String?
        /// Its place in `idle` while it is idle (nil: working).
        var idleTicket: Int?
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var byAddress: [String: Int] = [:]
        var byGroup: [String: Int] = [:]
        var total = 0
        var nextID = 0
        /// Idle connections in the order they became idle; a stale ticket (the connection got busy or went)
        /// is skipped when met.
        var idle: Deque<(id: Int, ticket: Int)> = []
        var nextTicket = 0
    }

    private let state = Mutex(State())

    init(limits: ConnectionLimits, clients: ClientAddress) {
        self.limits = limits
        self.clients = clients
    }

    /// A group holds this many connections at most: four clients' worth.
    var perGroup: Int { limits.perAddress * 4 }

    /// Where shedding starts: 5 % below the total (at least one connection).
    var sheddingFrom: Int { limits.total - max(limits.total / 20, 1) }

    /// Counts a new connection (idle until it sends a byte); nil when it must be refused, else its id. Sheds
    /// the longest-idle connection when the total nears its limit.
    func admit(_ channel: any Channel) -> Int? {
        let address = channel.remoteAddress?.ipAddress ?? "unknown"
        let proxy = clients.isTrustedProxy(address)
        let key = proxy ? "" : ClientAddress.key(address)
        let group = proxy ? nil : ClientAddress.groupKey(address)
        var shed: (any Channel)?
        let id = state.withLock { state -> Int? in
            if !key.isEmpty, state.byAddress[key, default: 0] >= limits.perAddress { return nil }
            if let group, state.byGroup[group, default: 0] >= perGroup { return nil }
            if state.total >= sheddingFrom { shed = Self.shedLongestIdle(&state) }
            guard state.total < limits.total else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.entries[id] = Entry(channel: channel, address: key, group: group, idleTicket: nil)
            if !key.isEmpty { state.byAddress[key, default: 0] += 1 }
            if let group { state.byGroup[group, default: 0] += 1 }
            state.total += 1
            Self.markIdle(id, &state)
            return id
        }
        // Closed outside the lock: its handlers run inline when it shares this event loop.
        if let shed {
            ReplicaMetrics.connectionsShed.increment()
            shed.close(promise: nil)
        }
        return id
    }

    /// The connection has nothing in flight: it may be shed, longest idle first.
    func idle(_ id: Int) {
        state.withLock { state in
            guard state.entries[id]?.idleTicket == nil else { return }
            Self.markIdle(id, &state)
        }
    }

    /// The connection is working (a request arrived, an answer is being sent): it is not shed.
    func busy(_ id: Int) {
        state.withLock { $0.entries[id]?.idleTicket = nil }
    }

    /// The connection closed (or was shed, which released it already).
    func release(_ id: Int) {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: id) else { return }
            Self.uncount(entry, &state)
        }
    }

    var total: Int { state.withLock { $0.total } }

    private static func markIdle(_ id: Int, _ state: inout State) {
        let ticket = state.nextTicket
        state.nextTicket += 1
        state.entries[id]?.idleTicket = ticket
        state.idle.append((id, ticket))
        // Stale tickets (a kept-alive connection becomes idle after each request) are dropped once they
        // outnumber the connections: the queue stays within a few times the connections held.
        if state.idle.count > 2 * state.entries.count + 1024 {
            state.idle = Deque(state.idle.filter { state.entries[$0.id]?.idleTicket == $0.ticket })
        }
    }

    /// Takes the longest-idle connection out of the counts and returns it, to be closed.
    private static func shedLongestIdle(_ state: inout State) -> (any Channel)? {
        while let (id, ticket) = state.idle.popFirst() {
            guard let entry = state.entries[id], entry.idleTicket == ticket else { continue }  // stale
            state.entries[id] = nil
            uncount(entry, &state)
            return entry.channel
        }
        return nil
    }

    private static func uncount(_ entry: Entry, _ state: inout State) {
        state.total -= 1
        if !entry.address.isEmpty {
            let left = state.byAddress[entry.address, default: 1] - 1
            state.byAddress[entry.address] = left > 0 ? left : nil
        }
        if let group = entry.group {
            let left = state.byGroup[group, default: 1] - 1
            state.byGroup[group] = left > 0 ? left : nil
        }
    }
}
