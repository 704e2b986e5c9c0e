import Foundation

/// Lets a blocking loop sleep until a deadline, a stop, or a nudge (a take request), whichever comes first.
final class StopSignal: @unchecked Sendable {
    // @unchecked Sendable: `stopped` and `nudged` are only touched while `condition` is locked.
    private let condition = NSCondition()
    private var stopped = false
    private var nudged = false

    var isStopped: Bool { condition.withLock { stopped } }

    func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
    }

    func nudge() {
        condition.withLock {
            nudged = true
            condition.broadcast()
        }
    }

    /// Sleeps up to `timeout`, returning early on stop or nudge.
    func sleep(_ timeout: Duration) {
        let (s, atto) = timeout.components
        let deadline = Date().addingTimeInterval(Double(s) + Double(atto) / 1e18)
        condition.withLock {
            while !stopped && !nudged {
                if !condition.wait(until: deadline) { return }
            }
        }
    }

    /// Takes a pending nudge (and clears it).
    func takeNudge() -> Bool {
        condition.withLock {
            defer { nudged = false }
            return nudged
        }
    }
}
