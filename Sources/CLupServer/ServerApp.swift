import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import KioskCore
import Logging
import NIOCore
import ServiceLifecycle
import ServiceSupport
import SyncWire

/// clup-server as a library: the central server every store's kiosks sync with, and the customer app's API.
///
/// ``ServerApp/build(_:logger:)`` opens the database, loads every store's queue and returns the services to
/// run (the HTTP application); the `clup-server` executable and the tests both use it.
public struct ServerApp: Sendable {
    public struct Options: Sendable {
        public var host = "127.0.0.1"
        public var port = 8090
        /// A SQLite file, or a `postgres://` URL (``DatabaseLocation``).
        public var database = "/var/lib/clup-server/clup.sqlite"
        /// Upper-case URL every ticket QR starts with: the same as the kiosks' `[store] status_url`.
        public var statusURL = "HTTPS://CLUP.EXAMPLE/T/"
        /// How long a manager's login lasts.
        public var sessionLifetime: Duration = .seconds(12 * 3600)
        /// A called ticket not used within this many minutes expires (as the doors' `call_window_minutes`).
        public var callWindowMinutes = 10
        /// The system manager's bearer token (from a file or the environment, never the command line).
        public var adminToken: String
        /// What the server takes as now (tests shift it to make a booked slot come).
        public var clock: WallClock = .system
        /// What anonymous clients may create, and how fast.
        public var limits = PublicLimits()
        /// How often called tickets past their window are expired.
        public var expiryInterval: Duration = .seconds(5)
        /// How often the stores' live state is kept for the next start (``LeaseDuty/snapshotKeeper(_:lease:interval:logger:)``): a start folds at
        /// most this long of each store's events.
        public var snapshotInterval: Duration = .seconds(15 * 60)
        /// Raw events older than this many days are removed (``LeaseDuty/eventRetention(_:days:lease:logger:)``; at least 367).
        public var keepEventsDays = 400
        /// Connections: how many, per client address, and how long they may stay silent.
        public var connections = ConnectionLimits()
        /// Proxies (load balancers) whose `X-Forwarded-For` names the client; nobody else's is believed.
        public var trustedProxies: [CIDR] = []
        /// How far ahead of the server's clock a kiosk's event may be (its clock is off: it is told to check NTP).
        public var clockSkew: Duration = .seconds(EventChecks.defaultSkewSeconds)
        /// A kiosk's event that reaches the server later than this after it happened counts for the line from
        /// its arrival (behind everyone already waiting).
        public var lateEventAfter: Duration = .seconds(60)
        /// HTTPS with this certificate and key (read again on SIGHUP); nil: plain HTTP, for loopback or
        /// behind a load balancer that terminates TLS.
        public var tls: ServerCertificate.Files?
        /// Seals stores' signing keys in the database (``KeyVault``); nil: stored raw (a warning says so).
        public var storageKeyFile: String?
        /// Storage keys of before a rotation, still read with.
        public var previousStorageKeyFiles: [String] = []
        /// The oldest kiosk sync protocol served (``SyncProtocol``): older kiosks are answered 426.
        public var oldestKioskProtocol = SyncProtocol.oldestServedByDefault
        /// Web Push to ticket holders (`[push]`), and how often the due notices are looked for.
        public var push = PushOptions()
        public var pushInterval: Duration = .seconds(2)

        public init(adminToken: String) {
            self.adminToken = adminToken
        }
    }

    /// A mistake in the server's configuration: what is wrong and how to put it right.
    public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
        public let description: String

        public init(_ description: String) {
            self.description = description
        }
    }

    public let database: any ServerStorage
    public let logs: StoreQueues
    /// Whether this replica runs the background duties now (always, with SQLite).
    public let lease: DutyLease
    /// Every route, `METHOD /path` with `{parameters}` (what docs/clup-server.openapi.yaml must describe).
    public let routes: [String]
    public let services: [any Service]
    /// The port once the server listens (useful with port 0).
    public let port: ListeningPort
    /// What the server presents when it serves HTTPS.
    public let certificate: ServerCertificate?
    /// The connections held now (``ConnectionCounts``).
    let connections: ConnectionCounts
    /// Failed logins and tokens remembered (``LoginThrottle``).
    let throttle: LoginThrottle

    /// 32 random bytes written in base64 (43 characters without padding; in hex, 64).
    public static let minimumAdminTokenLength = 43

    public static func build(_ options: Options, logger: Logger) async throws -> ServerApp {
        guard options.adminToken.utf8.count >= Self.minimumAdminTokenLength else {
            throw ConfigurationError(
                "the admin token must be at least \(Self.minimumAdminTokenLength) characters (32 random bytes) — "
                    + "generate one with `openssl rand -hex 32`"
            )
        }
        guard TicketCodec.isValidPrefix(options.statusURL) else {
            throw ConfigurationError(
                "status URL '\(options.statusURL)': upper case (QR alphanumeric) and at most "
                    + "\(TicketCodec.maxPrefixLength) characters, e.g. HTTPS://CLUP.EXAMPLE/T/"
            )
        }
        let certificate = try options.tls.map { files throws(ConfigurationError) in
            try ServerCertificate(files: files)
        }
        guard (SyncProtocol.withoutHeader...SyncProtocol.current).contains(options.oldestKioskProtocol) else {
            throw ConfigurationError(
                "the oldest kiosk protocol must be \(SyncProtocol.withoutHeader)–\(SyncProtocol.current) (this "
                    + "server's protocol is \(SyncProtocol.current))"
            )
        }
        let vault = try KeyVault(keyFile: options.storageKeyFile, previousKeyFiles: options.previousStorageKeyFiles)
        if !vault.isConfigured {
            logger.warning(
                "stores' signing keys are stored unsealed: give --storage-key-file (the unit's storage-key credential)"
            )
        }
        switch try DatabaseLocation(options.database) {
        case .sqlite(let path):
            let database = try SQLiteStorage(path: path, clock: options.clock, vault: vault)
            return try await assemble(options, database: database, postgres: nil, certificate: certificate, logger)
        case .postgres(let address):
            let storage = try await PostgresStorage(address, clock: options.clock, vault: vault, logger: logger)
            return try await storage.starting {
                try await assemble(options, database: storage, postgres: storage, certificate: certificate, logger)
            }
        }
    }

    /// Loads every store's queue from `database` and makes the routes and services: the start's reads of
    /// ``build(_:logger:)``, before the service group runs.
    private static func assemble(
        _ options: Options,
        database: any ServerStorage,
        postgres: PostgresStorage?,
        certificate: ServerCertificate?,
        _ logger: Logger
    ) async throws -> ServerApp {
        let logs = try await StoreQueues(database: database, callWindow: .seconds(options.callWindowMinutes * 60))
        let clients = ClientAddress(trustedProxies: options.trustedProxies)
        let throttle = LoginThrottle()
        let auth = Authenticator(
            adminToken: options.adminToken,
            database: database,
            throttle: throttle,
            clients: clients,
            oldestKioskProtocol: options.oldestKioskProtocol
        )
        let now = options.clock.now()
        let gate = TicketGate(
            limits: options.limits,
            tokens: HolderTokens(key: try await database.serverKey("holder-tokens")),
            holders: Holders(
                maxBookings: options.limits.maxBookingsPerHolder,
                owned: try await database.holders(
                    since: now
                        - .seconds(
                            Int64(HolderRetention.days(bookingHorizonDays: options.limits.bookingHorizonDays)) * 86_400
                        )
                )
            ),
            workKey: try await database.serverKey("ticket-work"),
            isLive: { [logs] id in
                logs.store(containing: id).map { StoreQueues.liveEntry(id, in: $0.state) != nil } ?? false
            }
        )
        let directory = StoreDirectory(logs)
        let router = Router(context: ServerContext.self)
        let knownRoutes = KnownRoutes()
        router.middlewares.add(MetricsMiddleware())
        // Outside the error envelope: error responses over HTTPS carry HSTS too.
        let transport = TransportSecurity(clients: clients, tls: options.tls != nil)
        router.middlewares.add(transport)
        router.middlewares.add(ErrorEnvelope(routes: knownRoutes))
        router.get("healthz") { _, _ in "ok" }
        let passwords = PasswordChecks()
        let fleet = Fleet(database: database, contacts: auth.contacts, oldestProtocol: auth.oldestKioskProtocol)
        let office = StoreOffice(
            database: database,
            logs: logs,
            contacts: auth.contacts,
            passwords: passwords,
            fleet: fleet
        )
        StoreRoutes(office: office, auth: auth).register(on: router)
        let reports = Reports(database: database, logs: logs)
        ReportRoutes(reports: reports, auth: auth).register(on: router)
        let lease = DutyLease(storage: postgres, logger: logger)
        FleetRoutes(auth: auth, directory: directory, lease: lease, fleet: fleet).register(on: router)
        EventRoutes(
            auth: auth,
            desk: KioskDesk(
                logs: logs,
                database: database,
                checks: EventChecks(skew: options.clockSkew),
                late: LateEvents(lateAfter: options.lateEventAfter, database: database),
                pace: KioskPace(
                    events: options.connections.eventsPerKiosk,
                    tickets: options.connections.ticketsPerKiosk
                ),
                fleet: fleet
            )
        )
        .register(on: router)
        let accounts = Accounts(
            database: database,
            throttle: throttle,
            devices: KnownDevices(key: try await database.serverKey("login-devices")),
            sessionLifetime: options.sessionLifetime,
            passwords: passwords
        )
        AccountRoutes(accounts: accounts, clients: clients).register(on: router)
        let desk = ShopperDesk(logs: logs, gate: gate, statusURL: options.statusURL, fleet: fleet)
        AppRoutes(desk: desk, auth: auth, clients: clients).register(on: router)
        BookingRoutes(desk: desk, clients: clients).register(on: router)
        let pages = PageResponse(statusURL: options.statusURL)
        let ticketPage = TicketPage(directory: directory, desk: desk, pages: pages)
        ticketPage.register(on: router)
        StartPage(desk: desk, directory: directory, pages: pages).register(on: router)
        BookingPage(directory: directory, desk: desk, pages: pages).register(on: router)
        let sessions = ConsoleSessions(
            key: try await database.serverKey("console"),
            auth: auth,
            accounts: accounts,
            lifetime: options.sessionLifetime,
            transport: transport
        )
        ConsoleRoutes(sessions: sessions, accounts: accounts, pages: pages, clients: clients).register(on: router)
        StoreConsole(sessions: sessions, office: office, reports: reports, directory: directory, pages: pages)
            .register(on: router)
        AdminConsole(sessions: sessions, office: office, directory: directory, pages: pages).register(on: router)
        FleetConsole(sessions: sessions, fleet: fleet, directory: directory, pages: pages).register(on: router)
        let push = try await Self.push(
            options,
            database: database,
            desk: desk,
            page: ticketPage,
            lease: lease,
            router: router,
            logger: logger
        )
        let pairing = KioskPairing(database: database, office: office, logs: logs, throttle: throttle)
        PairingRoutes(pairing: pairing, clients: clients, transport: transport).register(on: router)
        PairingConsole(sessions: sessions, pairing: pairing, directory: directory, clients: clients, pages: pages)
            .register(on: router)
        let port = ListeningPort()
        let routes = router.routes.map { route in
            "\(route.method.rawValue) "
                + "\(route.path)".split(separator: "/", omittingEmptySubsequences: false)
                .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
        }
        knownRoutes.set(routes)
        let counts = ConnectionCounts(limits: options.connections, clients: clients)
        let pace = RequestPace(
            limits: options.connections,
            clients: clients,
            known: auth.kiosks,
            clock: options.clock
        )
        let http1 = HTTPServerBuilder.http1(
            configuration: .init(
                additionalChannelHandlers: [ConnectionGuard(counts: counts), RequestPacer(pace: pace)],
                idleTimeout: TimeAmount(options.connections.idleTimeout)
            )
        )
        let http = Application(
            router: router,
            server: try certificate.map { try .tls(http1, tlsConfiguration: $0.tlsConfiguration) } ?? http1,
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "clup-server"),
            onServerRunning: { channel in port.set(channel.localAddress?.port ?? options.port) },
            logger: logger
        )
        // The models the replica holding the lease learnt (``LeaseDuty/modelRefresh(_:lease:logger:)``).
        do { try await logs.loadModels() } catch {
            logger.warning("cannot read the stored wait estimates: learnt again", metadata: ["error": "\(error)"])
        }
        let duties: [any Service] = [
            LeaseDuty.noShowExpiry(
                logs,
                policy: AdmissionPolicy(callWindow: .seconds(options.callWindowMinutes * 60)),
                lease: lease,
                interval: options.expiryInterval,
                logger: logger
            ),
            LeaseDuty.businessDayStart(logs, lease: lease, logger: logger),
            LeaseDuty.modelRefresh(logs, lease: lease, logger: logger),
            LeaseDuty.snapshotKeeper(logs, lease: lease, interval: options.snapshotInterval, logger: logger),
            LeaseDuty.eventRetention(
                logs,
                days: max(options.keepEventsDays, EventRetention.fewestDays),
                lease: lease,
                logger: logger
            ),
            LeaseDuty.holderRetention(
                logs,
                days: HolderRetention.days(bookingHorizonDays: options.limits.bookingHorizonDays),
                lease: lease,
                logger: logger
            ),
        ]
        return ServerApp(
            database: database,
            logs: logs,
            lease: lease,
            routes: routes.sorted(),
            services: (postgres.map { shared -> [any Service] in
                [
                    PostgresClientService(storage: shared), LogFollower(logs: logs, storage: shared, logger: logger),
                    lease,
                ]
            } ?? []) + [CatchUpAfterCommits(logs: logs, logger: logger), http] + duties + push
                + (certificate.map { [CertificateReload(certificate: $0, logger: logger)] } ?? []),
            port: port,
            certificate: certificate,
            connections: counts,
            throttle: throttle
        )
    }

    /// A service group running every service, stopping them all on SIGTERM or SIGINT (`handleSignals`).
    public func serviceGroup(logger: Logger, handleSignals: Bool = true) -> ServiceGroup {
        ServiceGroup(running: services, logger: logger, handleSignals: handleSignals)
    }
}

/// PostgreSQL's connection pool as a service of the group (the start read through a client of its own,
/// ``PostgresStorage/starting(_:)``). First in the group, so it is the last to be told to stop: every request
/// and duty has ended by then.
struct PostgresClientService: Service {
    let storage: PostgresStorage

    /// Lasts as long as the client does: ends it when the group stops, and ends the group if it ends by itself.
    func run() async throws {
        await cancelWhenGracefulShutdown { await storage.run() }
    }
}
