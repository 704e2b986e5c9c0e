import Synchronization

/// Tells live pages and long-polls that something changed (a station's status, a store's log). Writers call
/// ``notify()`` from any thread; each subscriber (an SSE connection, a long-poll) gets at most one pending
/// wake-up, so a slow client never builds a backlog: it reads the newest state when it wakes.
public final class ChangeFeed: Sendable {
    private struct Subscribers {
        var next = 0
        var continuations: [Int: AsyncStream<Void>.Continuation] = [:]
    }

    private let subscribers = Mutex(Subscribers())
    /// A wider feed each change here is also a change of (the station's pages follow its queue and statuses).
    private let wider: ChangeFeed?

    public init(alsoNotifying wider: ChangeFeed? = nil) {
        self.wider = wider
    }

    public func notify() {
        subscribers.withLock { s in
            for continuation in s.continuations.values { continuation.yield() }
        }
        wider?.notify()
    }

    /// A stream that yields once now (so the subscriber sends the current status), after every change, and
    /// every `heartbeat` without one (so a page notices a dead connection and proxies keep it open).
    public func subscribe(heartbeat: Duration = .seconds(15)) -> AsyncStream<Void> {
        AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let id = subscribers.withLock { s in
                let id = s.next
                s.next += 1
                s.continuations[id] = continuation
                return id
            }
            continuation.yield()
            let beat = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: heartbeat)
                    continuation.yield()
                }
            }
            continuation.onTermination = { [weak self] _ in
                beat.cancel()
                _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: id) }
            }
        }
    }

    public var subscriberCount: Int { subscribers.withLock { $0.continuations.count } }

    /// Waits until `ready()` holds (checked now and after each change) or `timeout` passes; the final
    /// answer of `ready()`. For long-polls: the caller rechecks what it waits for, so no change is missed.
    public func wait(timeout: Duration, until ready: @escaping @Sendable () -> Bool) async -> Bool {
        let changes = subscribe(heartbeat: timeout)
        let deadline = ContinuousClock.now + timeout
        for await _ in changes {
            if ready() { return true }
            if ContinuousClock.now >= deadline || Task.isCancelled { break }
        }
        return ready()
    }
}
