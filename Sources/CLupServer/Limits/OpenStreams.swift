import Synchronization

/// Live event streams held open, bounded per client address, per ticket and in all: one client (or one
/// ticket's photographed QR passed around) cannot hold a thousand connections of the server's.
final class OpenStreams: Sendable {
    struct Limits: Sendable {
        var perAddress = 16
        var perTicket = 4
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

    /// Opens a stream for `address` on `ticket`; false when a bound is reached. Each `true` needs a `close`.
    func open(address: String, ticket: String) -> Bool {
        counts.withLock { counts in
            let a = "a:" + address
            let t = "t:" + ticket
            guard counts.total < limits.total, counts.byKey[a, default: 0] < limits.perAddress,
                counts.byKey[t, default: 0] < limits.perTicket
            else { return false }
            counts.byKey[a, default: 0] += 1
            counts.byKey[t, default: 0] += 1
            counts.total += 1
            ReplicaMetrics.eventStreams.increment()
            return true
        }
    }

    func close(address: String, ticket: String) {
        counts.withLock { counts in
            for key in ["a:" + address, "t:" + ticket] {
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
