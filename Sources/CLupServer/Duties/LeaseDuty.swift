import Logging
import ServiceLifecycle

/// One duty of the replica holding the duties' lease (``DutyLease``), as a service of the server's group: `work`
/// runs every `interval` while this replica holds the lease — at once when it takes the lease (or one interval
/// after the start, with `firstAfterInterval`), and once more when the server stops (with `atStop`). The lease is
/// looked at every second (or every interval, when shorter). A failed turn is logged with what it means for the
/// store (`failure`) and tried again an interval later, not every second.
struct LeaseDuty: Service {
    let lease: DutyLease
    let interval: Duration
    var firstAfterInterval = false
    var atStop = false
    /// What a failed turn means, for the operator (the error follows it in the log).
    let failure: String
    let logger: Logger
    let work: @Sendable () async throws -> Void

    func run() async throws {
        var last: ContinuousClock.Instant? = firstAfterInterval ? .now : nil
        let look = min(interval, .seconds(1))
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            if !lease.isHeld {
                if !firstAfterInterval { last = nil }  // taken over later: at once
            } else if last.map({ ContinuousClock.now - $0 >= interval }) ?? true {
                await turn()
                last = .now
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: look) }
        }
        if atStop, lease.isHeld { await turn() }
    }

    private func turn() async {
        do { try await work() } catch { logger.error("\(failure)", metadata: ["error": "\(error)"]) }
    }
}
