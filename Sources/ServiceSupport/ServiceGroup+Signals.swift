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
