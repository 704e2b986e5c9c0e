import Synchronization

/// A long-running loop's sign of life: the loop beats once per turn; a supervisor (the systemd watchdog)
/// sees how long ago that was. A loop stuck in a call that never returns stops beating.
public final class Heartbeat: Sendable {
    private let last = Mutex<ContinuousClock.Instant?>(nil)

    public init() {}

    public func beat() {
        last.withLock { $0 = .now }
    }

    /// Time since the last beat; nil before the first (the loop has not finished a turn yet).
    public var age: Duration? {
        last.withLock { $0.map { .now - $0 } }
    }
}
