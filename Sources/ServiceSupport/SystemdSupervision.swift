import Logging
import ServiceLifecycle

/// The `Service` that talks to systemd for a daemon: `READY=1` once `ready()` holds (e.g. the store is
/// open and every device loop made its first attempt), then `WATCHDOG=1` every half watchdog timeout, but
/// only while `healthy()` holds (every loop keeps turning); `STOPPING=1` on shutdown. A daemon whose loop
/// hangs in a call that never returns stops pinging, and systemd restarts it (`WatchdogSec=`).
public struct SystemdSupervision: Service {
    let notifier: SystemdNotifier
    let ready: @Sendable () -> Bool
    let healthy: @Sendable () -> String?
    let logger: Logger

    /// `healthy` returns nil when all is well, else what is stuck (logged, and put in systemd's status).
    public init(
        notifier: SystemdNotifier = SystemdNotifier(),
        logger: Logger,
        ready: @escaping @Sendable () -> Bool,
        healthy: @escaping @Sendable () -> String? = { nil }
    ) {
        self.notifier = notifier
        self.ready = ready
        self.healthy = healthy
        self.logger = logger
    }

    public func run() async throws {
        guard notifier.socketPath != nil else {
            // Not under systemd: nothing to tell. Still run until shutdown (a service that returns ends the group).
            try? await gracefulShutdown()
            return
        }
        while !ready() {
            guard (try? await cancelWhenGracefulShutdown({ try await Task.sleep(for: .milliseconds(20)) })) != nil
            else {
                notifier.notify("STOPPING=1")
                return
            }
        }
        notifier.notify("READY=1\nSTATUS=running")
        logger.debug("told systemd: ready")
        let interval = notifier.watchdogTimeout.map { $0 / 2 } ?? .seconds(3600)
        var stuck: String?
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            if notifier.watchdogTimeout != nil {
                let problem = healthy()
                if let problem {
                    if stuck != problem {
                        logger.error("not pinging the systemd watchdog", metadata: ["stuck": "\(problem)"])
                        notifier.notify("STATUS=stuck: \(problem)")
                    }
                } else {
                    if stuck != nil { notifier.notify("STATUS=running") }
                    notifier.notify("WATCHDOG=1")
                }
                stuck = problem
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
        notifier.notify("STOPPING=1")
    }
}
