import Glibc
import Logging
import ServiceLifecycle

extension ServiceGroup {
    /// A group running `services`, all stopped gracefully on SIGTERM or SIGINT when `handleSignals` (a
    /// daemon), or only by `triggerGracefulShutdown()` (tests, the demo).
    public init(running services: [any Service], logger: Logger, handleSignals: Bool) {
        self.init(
            configuration: .init(
                services: services.map { .init(service: $0) },
                gracefulShutdownSignals: handleSignals ? [.sigterm, .sigint] : [],
                logger: logger
            )
        )
    }
}

/// Unblocks SIGTERM, SIGINT and SIGHUP in this thread (and the threads it starts): a parent — a test runner, a
/// shell script — may have blocked them, and a daemon's service group must see them to stop cleanly (and
/// clup-server SIGHUP to reload its certificate).
public func unblockStopSignals() {
    var stopSignals = sigset_t()
    sigemptyset(&stopSignals)
    sigaddset(&stopSignals, SIGTERM)
    sigaddset(&stopSignals, SIGINT)
    sigaddset(&stopSignals, SIGHUP)
    pthread_sigmask(SIG_UNBLOCK, &stopSignals, nil)
}
