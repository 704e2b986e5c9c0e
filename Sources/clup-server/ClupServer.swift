import ArgumentParser
import CLupServer
import Foundation
import Glibc
import Logging
import ServiceLifecycle
import ServiceSupport

/// `clup-server`: the central CLup server (store event logs, kiosk sync, the customer app's API).
@main
struct ClupServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clup-server",
        abstract: "CLup central server: store event logs, kiosk sync and the customer app API (HTTP/JSON under /v1).",
        version: Release.version
    )

    /// The defaults every flag's help names (``ServerApp/Options``: written once).
    static let defaults = ServerSettings()

    @Option(
        help: """
            A TOML file with the settings (config/clup-server.toml lists every key); the flags given here win over \
            it, and it wins over the defaults.
            """
    )
    var config: String?

    @Option(help: "Address to listen on (default \(defaults.options.host)).")
    var host: String?

    @Option(help: "Port to listen on (default \(defaults.options.port)).")
    var port: Int?

    @Option(
        help: """
            Where the server keeps its data: a SQLite file (one server; created with its schema on first start) \
            or postgres://USER@HOST:PORT/DATABASE (any number of servers share it; the password in PGPASSWORD). \
            Default \(defaults.options.database).
            """
    )
    var database: String?

    @Option(help: "File holding the system manager's token (else the CLUP_ADMIN_TOKEN environment variable).")
    var adminTokenFile: String?

    @Option(
        help: """
            Upper-case URL every ticket QR starts with: the same as the kiosks' [store] status_url \
            (default \(defaults.options.statusURL)).
            """
    )
    var statusURL: String?

    @Option(
        help: """
            Minutes a called ticket may go unused before it expires, as the doors' call_window_minutes \
            (default \(defaults.options.callWindowMinutes)).
            """
    )
    var callWindowMinutes: Int?

    @Option(
        help: """
            A proxy (load balancer) whose X-Forwarded-For names the client, as a CIDR (repeat for several). \
            Without one, the client is the connection's peer and X-Forwarded-For is ignored.
            """
    )
    var trustedProxy: [CIDR] = []

    @Option(
        help: """
            PEM certificate chain to serve HTTPS with (the server's certificate first, then intermediates); \
            read again on SIGHUP. Without it, plain HTTP: for loopback, or behind a load balancer that ends TLS.
            """
    )
    var tlsCertificate: String?

    @Option(help: "PEM private key of --tls-certificate (unencrypted, readable by clup-server only).")
    var tlsKey: String?

    @Option(
        help: """
            Virtual tickets one client address may take: BURST/SECONDS, that many at once, then one per SECONDS \
            (default \(defaults.options.limits.ticketsPerAddress)).
            """
    )
    var ticketsPerAddress: RateLimiter.Rule?

    @Option(
        help: """
            Tickets and bookings asked for without a Clup-Holder (each makes a new holder) per client address: \
            BURST/SECONDS (default \(defaults.options.limits.newHoldersPerAddress)).
            """
    )
    var newHoldersPerAddress: RateLimiter.Rule?

    @Option(
        help: """
            Virtual tickets a store hands out: BURST/SECONDS, with --ticket-work off; else its price rises \
            (default \(defaults.options.limits.ticketsPerStore)).
            """
    )
    var ticketsPerStore: RateLimiter.Rule?

    @Option(
        help:
            "Bookings one client address may make: BURST/SECONDS (default \(defaults.options.limits.bookingsPerAddress))."
    )
    var bookingsPerAddress: RateLimiter.Rule?

    @Option(
        help: """
            Bookings a store takes: BURST/SECONDS, with --ticket-work off; else its price rises \
            (default \(defaults.options.limits.bookingsPerStore)).
            """
    )
    var bookingsPerStore: RateLimiter.Rule?

    @Option(
        help: """
            The proof of work a virtual ticket or a booking costs: BASE-MAX zero bits of SHA-256 (BASE at a calm \
            store, one more each time its paid requests double, up to MAX), or `off` \
            (default \(WorkSetting(defaults.options.limits.work).description)).
            """
    )
    var ticketWork: WorkSetting?

    @Option(
        help: """
            Virtual tickets waiting at once, per place of a store's capacity \
            (default \(defaults.options.limits.openTicketsPerPlace)).
            """
    )
    var openTicketsPerPlace: Int?

    @Option(help: "How many days ahead a visit can be booked (default \(defaults.options.limits.bookingHorizonDays)).")
    var bookingHorizonDays: Int?

    @Option(
        help:
            "Bookings one device (holder token) may hold at once (default \(defaults.options.limits.maxBookingsPerHolder))."
    )
    var bookingsPerHolder: Int?

    @Option(
        help: """
            Connections held at once, in all, at most the open-file limit less a margin \
            (default \(defaults.options.connections.total)).
            """
    )
    var maxConnections: Int?

    @Option(
        help: """
            Connections one client address may hold; a trusted proxy's count only in the total \
            (default \(defaults.options.connections.perAddress)).
            """
    )
    var maxConnectionsPerAddress: Int?

    @Option(
        help: """
            A file with 32 random bytes (hex or base64: `openssl rand -hex 32`) that seals stores' signing keys \
            in the database; default: the storage-key credential systemd passes ($CREDENTIALS_DIRECTORY).
            """
    )
    var storageKeyFile: String?

    @Option(help: "A storage key of before a rotation, still read with (repeatable); keys are sealed anew at start.")
    var previousStorageKeyFile: [String] = []

    @Option(
        help: """
            Seconds a kiosk's event may be ahead of this server's clock; beyond, refused: check NTP \
            (default \(defaults.options.clockSkew.components.seconds)).
            """
    )
    var clockSkewSeconds: Int?

    @Option(
        help: """
            Seconds after which a kiosk's event counts as late: its ticket joins the line when the event arrived \
            (behind everyone already waiting), not when the kiosk says it happened \
            (default \(defaults.options.lateEventAfter.components.seconds)).
            """
    )
    var lateEventSeconds: Int?

    @Option(
        help: """
            The oldest kiosk sync protocol served; older kiosks are answered 426 and told to update kioskd. Raise \
            it to 2 before a server that writes new event types goes live (docs/deployment.md#kiosks-across-versions) \
            (default \(defaults.options.oldestKioskProtocol)).
            """
    )
    var oldestKioskProtocol: Int?

    @Option(
        help: """
            Requests one client address may send: BURST/SECONDS (that many at once, then one per SECONDS). \
            Beyond, its requests wait their turn (up to 10 s, then it is disconnected) \
            (default \(defaults.options.connections.requestsPerAddress)).
            """
    )
    var requestsPerAddress: RateLimiter.Rule?

    @Option(
        help: """
            Requests one enrolled kiosk may send, whatever address it shares with others: BURST/SECONDS \
            (default \(defaults.options.connections.requestsPerKiosk)).
            """
    )
    var requestsPerKiosk: RateLimiter.Rule?

    @Option(
        help: """
            Events one kiosk may append: BURST/SECONDS; what does not fit waits in the kiosk's outbox (429) \
            (default \(defaults.options.connections.eventsPerKiosk)).
            """
    )
    var eventsPerKiosk: RateLimiter.Rule?

    @Option(
        help: """
            Paper tickets one kiosk may issue: BURST/SECONDS, a printer's pace \
            (default \(defaults.options.connections.ticketsPerKiosk)).
            """
    )
    var ticketsPerKiosk: RateLimiter.Rule?

    @Option(
        help: """
            Days raw events are kept (367 or more: a day's figures and CSV reach 366 days back); older ones are \
            removed once the stores' kept state covers them (default \(defaults.options.keepEventsDays)).
            """
    )
    var keepEventsDays: Int?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (default \(defaults.logLevel)).")
    var logLevel: String?

    func validate() throws {
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-certificate and --tls-key go together: give both files, or neither")
        }
        func within(_ value: Int?, _ range: ClosedRange<Int>, _ flag: String) throws {
            guard let value, !range.contains(value) else { return }
            throw ValidationError("--\(flag): \(range.lowerBound) to \(range.upperBound)")
        }
        try within(openTicketsPerPlace, ServerSettings.openTicketsPerPlace, "open-tickets-per-place")
        try within(bookingHorizonDays, ServerSettings.bookingHorizonDays, "booking-horizon-days")
        try within(bookingsPerHolder, ServerSettings.bookingsPerHolder, "bookings-per-holder")
        try within(
            keepEventsDays,
            ServerSettings.keepEventsDays,
            "keep-events-days (a day's figures reach 366 days back)"
        )
        try within(clockSkewSeconds, ServerSettings.kioskSeconds, "clock-skew-seconds")
        try within(lateEventSeconds, ServerSettings.kioskSeconds, "late-event-seconds")
        try within(callWindowMinutes, ServerSettings.callWindowMinutes, "call-window-minutes")
        try within(port, ServerSettings.port, "port")
        try within(maxConnections, ServerSettings.maxConnections, "max-connections")
        try within(maxConnectionsPerAddress, ServerSettings.maxConnectionsPerAddress, "max-connections-per-address")
    }

    /// The settings: the file's over the defaults, then the flags given.
    func settings() throws -> ServerSettings {
        var settings = ServerSettings()
        if let config {
            do { settings = try ServerSettings.read(config) } catch {
                // EX_CONFIG: the unit does not restart a broken configuration in a loop.
                FileHandle.standardError.write(Data("clup-server: \(error.description)\n".utf8))
                throw ExitCode(78)
            }
        }
        var o = settings.options
        if let host { o.host = host }
        if let port { o.port = port }
        if let database { o.database = database }
        if let statusURL { o.statusURL = statusURL }
        if let callWindowMinutes { o.callWindowMinutes = callWindowMinutes }
        if !trustedProxy.isEmpty { o.trustedProxies = trustedProxy }
        if let tlsCertificate, let tlsKey { o.tls = .init(certificateChain: tlsCertificate, privateKey: tlsKey) }
        if let clockSkewSeconds { o.clockSkew = .seconds(clockSkewSeconds) }
        if let lateEventSeconds { o.lateEventAfter = .seconds(lateEventSeconds) }
        if let oldestKioskProtocol { o.oldestKioskProtocol = oldestKioskProtocol }
        if let storageKeyFile { o.storageKeyFile = storageKeyFile }
        if !previousStorageKeyFile.isEmpty { o.previousStorageKeyFiles = previousStorageKeyFile }
        if let maxConnections { o.connections.total = maxConnections }
        if let maxConnectionsPerAddress { o.connections.perAddress = maxConnectionsPerAddress }
        if let requestsPerAddress { o.connections.requestsPerAddress = requestsPerAddress }
        if let requestsPerKiosk { o.connections.requestsPerKiosk = requestsPerKiosk }
        if let eventsPerKiosk { o.connections.eventsPerKiosk = eventsPerKiosk }
        if let ticketsPerKiosk { o.connections.ticketsPerKiosk = ticketsPerKiosk }
        if let ticketsPerAddress { o.limits.ticketsPerAddress = ticketsPerAddress }
        if let newHoldersPerAddress { o.limits.newHoldersPerAddress = newHoldersPerAddress }
        if let ticketsPerStore { o.limits.ticketsPerStore = ticketsPerStore }
        if let bookingsPerAddress { o.limits.bookingsPerAddress = bookingsPerAddress }
        if let bookingsPerStore { o.limits.bookingsPerStore = bookingsPerStore }
        if let openTicketsPerPlace { o.limits.openTicketsPerPlace = openTicketsPerPlace }
        if let ticketWork { o.limits.work = ticketWork.rule }
        if let keepEventsDays { o.keepEventsDays = keepEventsDays }
        if let bookingHorizonDays { o.limits.bookingHorizonDays = bookingHorizonDays }
        if let bookingsPerHolder { o.limits.maxBookingsPerHolder = bookingsPerHolder }
        settings.options = o
        if let adminTokenFile { settings.adminTokenFile = adminTokenFile }
        if let logLevel { settings.logLevel = logLevel }
        return settings
    }

    /// The path of a credential systemd passed the unit (`LoadCredential=`), if it did.
    static func credential(_ name: String) -> String? {
        guard let directory = ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"] else { return nil }
        let path = directory + "/" + name
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    func run() async throws {
        let settings = try settings()
        let token: String
        if let file = settings.adminTokenFile ?? Self.credential("admin-token") {
            do {
                token = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(
                    in: .whitespacesAndNewlines
                )
            } catch {
                throw ValidationError("\(file): cannot read the admin token (\(error))")
            }
        } else if let env = ProcessInfo.processInfo.environment["CLUP_ADMIN_TOKEN"] {
            token = env
        } else {
            throw ValidationError(
                "no admin token: pass --admin-token-file ([server] admin_token_file), give the unit the admin-token "
                    + "credential, or set CLUP_ADMIN_TOKEN"
            )
        }
        unblockStopSignals()
        let logger = KeyValueLogHandler.bootstrap(program: "clup-server", level: settings.logLevel)
        ReplicaMetrics.bootstrap()
        var options = settings.options
        options.adminToken = token
        options.storageKeyFile = options.storageKeyFile ?? Self.credential("storage-key")
        options.connections.total = min(options.connections.total, Self.raiseOpenFileLimit() - 64)
        let server: ServerApp
        do {
            try PortProbe.check(host: options.host, port: options.port, setting: "--port ([server] port)")
            server = try await ServerApp.build(options, logger: logger)
        } catch {
            FileHandle.standardError.write(Data("clup-server: \(error)\n".utf8))
            // A taken port is not EX_CONFIG: it may be freed in a moment, and systemd then tries again.
            throw error is PortProbe.Refused ? ExitCode.failure : ExitCode(78)
        }
        let host = options.host
        if options.tls == nil, !["127.0.0.1", "::1", "localhost"].contains(host), options.trustedProxies.isEmpty {
            logger.warning(
                """
                serving plain HTTP on \(host): passwords, sessions and kiosk credentials travel in clear — pass \
                --tls-certificate and --tls-key, or put a load balancer that ends TLS in front (--trusted-proxy)
                """
            )
        }
        logger.notice(
            "clup-server starting",
            metadata: ["stores": "\(server.logs.all.count)", "tls": "\(server.certificate?.summary ?? "off")"]
        )
        let systemd = SystemdSupervision(logger: logger, ready: { server.port.current != nil })
        try await ServiceGroup(running: server.services + [systemd], logger: logger, handleSignals: true).run()
    }
}

extension ClupServerCommand {
    /// Raises the soft open-file limit to the hard one (systemd starts services at 1024) and returns it:
    /// every connection is a file descriptor.
    static func raiseOpenFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = min(limit.rlim_max, 1 << 20)
            _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
            _ = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
        return Int(clamping: limit.rlim_cur)
    }
}

extension CIDR: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}

extension RateLimiter.Rule: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
    public var defaultValueDescription: String { description }
}

extension WorkSetting: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
    public var defaultValueDescription: String { description }
}
