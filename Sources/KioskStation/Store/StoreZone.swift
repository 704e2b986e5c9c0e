import KioskCore
import Logging
import ServiceSupport
import Synchronization

/// The store's time zone as this kiosk knows it: `[store] time_zone` when the configuration names one, else
/// the zone clup-server gives the store (every page of its log carries it; kept in the state directory so a
/// kiosk that starts offline still has it), else UTC until the server has said. Never the box's own setting:
/// a box's clock zone is whatever its image shipped with.
public final class StoreZone: Sendable {
    private let configured: StoreTimeZone?
    private let store: LocalStore
    private let logger: Logger
    private let fromServer: Mutex<StoreTimeZone?>

    public init(configured: StoreTimeZone?, store: LocalStore, logger: Logger) {
        self.configured = configured
        self.store = store
        self.logger = logger
        let saved = (try? store.serverTimeZone()).flatMap { try? TimeZoneDirectory.system.zone(named: $0) }
        fromServer = Mutex(saved)
        if configured == nil && saved == nil {
            logger.warning(
                "the store's time zone is not known yet: counting days in UTC until clup-server says",
                metadata: ["action": "set [store] time_zone, e.g. \"Europe/Rome\", or let the kiosk sync once"]
            )
        }
    }

    /// The zone business days, ticket numbers and printed times follow.
    public var current: StoreTimeZone { configured ?? fromServer.withLock { $0 } ?? .utc }

    /// The zone clup-server names for the store (kept when the configuration names none, and stored).
    func serverSays(_ name: String) {
        guard fromServer.withLock({ $0?.identifier }) != name else { return }
        do {
            let zone = try TimeZoneDirectory.system.zone(named: name)
            try store.setServerTimeZone(name)
            fromServer.withLock { $0 = zone }
            if let configured, configured.identifier != name {
                logger.warning(
                    "[store] time_zone differs from the store's zone on clup-server; the configuration wins",
                    metadata: ["configured": "\(configured)", "server": "\(name)"]
                )
            } else if configured == nil {
                logger.notice("the store's time zone, from clup-server", metadata: ["zone": "\(name)"])
            }
        } catch {
            logger.error(
                "cannot use the store's time zone from clup-server",
                metadata: ["zone": "\(name)", "error": "\(error)", "action": "install tzdata or set [store] time_zone"]
            )
        }
    }
}
