import Glibc
import Logging
import ServiceLifecycle

extension ServiceGroup {
    /// How long the services have to end by themselves after SIGTERM (a print finishes, long-polls and streams
    /// end, the log is written) before they are cancelled.
    public static let gracefulShutdownLimit: Duration = .seconds(10)
    /// How long cancelled services then have before the group returns and the process exits anyway. Together
    /// with ``gracefulShutdownLimit`` within the units' `TimeoutStopSec=15s` (systemd/): a daemon stops by
    /// itself, not by systemd's SIGKILL.
    public static let cancellationLimit: Duration = .seconds(3)

    /// A group running `services`, all stopped gracefully on SIGTERM or SIGINT when `handleSignals` (a
    /// daemon), or only by `triggerGracefulShutdown()` (tests, the demo), within the limits above.
    public init(running services: [any Service], logger: Logger, handleSignals: Bool) {
        var configuration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) },
            gracefulShutdownSignals: handleSignals ? [.sigterm, .sigint] : [],
            logger: logger
        )
        configuration.maximumGracefulShutdownDuration = Self.gracefulShutdownLimit
        configuration.maximumCancellationDuration = Self.cancellationLimit
        self.init(configuration: configuration)
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
