import Synchronization

/// Live event streams held open, bounded per client address, per ticket and in all: one client (or one
/// ticket's photographed QR passed around) cannot hold a thousand connections of the server's. The ticket's
/// holder (its holder token) has places of its own, `perHolder` a ticket, outside the address's and the
/// strangers' bounds: whoever saw the QR can take the strangers' places, never the holder's.
final class OpenStreams: Sendable {
    struct Limits: Sendable {
        var perAddress = 16
        var perTicket = 4
        var perHolder = 4
        var total = 20_000
    }

    private struct Counts {
        var byKey: [String: Int] = [:]
        var total = 0
    }

    let limits: Limits
    private let counts = Mutex(Counts())

    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Opens a stream on `ticket` for `address`, or for the ticket's own holder; nil when a bound is reached,
    /// else the keys to ``close(_:)`` it with.
    func open(address: String, ticket: String, holder: Bool) -> [String]? {
        counts.withLock { counts in
            let keys = holder ? ["h:" + ticket] : ["a:" + address, "t:" + ticket]
            let bounds = holder ? [limits.perHolder] : [limits.perAddress, limits.perTicket]
            guard counts.total < limits.total, zip(keys, bounds).allSatisfy({ counts.byKey[$0, default: 0] < $1 })
            else { return nil }
            for key in keys { counts.byKey[key, default: 0] += 1 }
            counts.total += 1
            ReplicaMetrics.eventStreams.increment()
            return keys
        }
    }

    func close(_ keys: [String]) {
        counts.withLock { counts in
            for key in keys {
                let left = counts.byKey[key, default: 1] - 1
                counts.byKey[key] = left > 0 ? left : nil
            }
            counts.total -= 1
            ReplicaMetrics.eventStreams.decrement()
        }
    }

    var total: Int { counts.withLock { $0.total } }
}

/// One open stream's place in ``OpenStreams``, given back exactly once: when the stream ends, or when its
/// answer is dropped before its body ever ran (the client went between the route and the first byte).
final class StreamSlot: Sendable {
    private let release: @Sendable () -> Void
    private let ended = Atomic(false)

    init(release: @escaping @Sendable () -> Void) {
        self.release = release
    }

    func end() {
        if !ended.exchange(true, ordering: .relaxed) { release() }
    }

    deinit { end() }
}
