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
        abstract: "CLup central server: store event logs, kiosk sync and the customer app API (HTTP/JSON under /v1)."
    )

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on.")
    var port = 8090

    @Option(
        help: """
            Where the server keeps its data: a SQLite file (one server; created with its schema on first start) \
            or postgres://USER@HOST:PORT/DATABASE (any number of servers share it; the password in PGPASSWORD).
            """
    )
    var database = "/var/lib/clup-server/clup.sqlite"

    @Option(help: "File holding the system manager's token (else the CLUP_ADMIN_TOKEN environment variable).")
    var adminTokenFile: String?

    @Option(help: "Upper-case URL every ticket QR starts with: the same as the kiosks' [store] status_url.")
    var statusURL = "HTTPS://CLUP.EXAMPLE/T/"

    @Option(help: "Minutes a called ticket may go unused before it expires (as the doors' call_window_minutes).")
    var callWindowMinutes = 10

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
        help: "Virtual tickets one client address may take: BURST/SECONDS (that many at once, then one per SECONDS)."
    )
    var ticketsPerAddress = PublicLimits().ticketsPerAddress

    @Option(
        help: """
            Tickets and bookings asked for without a Clup-Holder (each makes a new holder) per client address: \
            BURST/SECONDS.
            """
    )
    var newHoldersPerAddress = PublicLimits().newHoldersPerAddress

    @Option(help: "Virtual tickets a store hands out: BURST/SECONDS (with --ticket-work off; else its price rises).")
    var ticketsPerStore = PublicLimits().ticketsPerStore

    @Option(help: "Bookings one client address may make: BURST/SECONDS.")
    var bookingsPerAddress = PublicLimits().bookingsPerAddress

    @Option(help: "Bookings a store takes: BURST/SECONDS (with --ticket-work off; else its price rises).")
    var bookingsPerStore = PublicLimits().bookingsPerStore

    @Option(
        help: """
            The proof of work a virtual ticket or a booking costs: BASE-MAX zero bits of SHA-256 (BASE at a calm \
            store, one more each time its paid requests double, up to MAX), or `off`.
            """
    )
    var ticketWork = WorkSetting(PublicLimits().work)

    @Option(help: "Virtual tickets waiting at once, per place of a store's capacity.")
    var openTicketsPerPlace = PublicLimits().openTicketsPerPlace

    @Option(help: "How many days ahead a visit can be booked.")
    var bookingHorizonDays = PublicLimits().bookingHorizonDays

    @Option(help: "Bookings one device (holder token) may hold at once.")
    var bookingsPerHolder = PublicLimits().maxBookingsPerHolder

    @Option(help: "Connections held at once, in all (at most the open-file limit less a margin).")
    var maxConnections = ConnectionLimits().total

    @Option(help: "Connections one client address may hold (a trusted proxy's count only in the total).")
    var maxConnectionsPerAddress = ConnectionLimits().perAddress

    @Option(
        help: """
            A file with 32 random bytes (hex or base64: `openssl rand -hex 32`) that seals stores' signing keys \
            in the database; default: the storage-key credential systemd passes ($CREDENTIALS_DIRECTORY).
            """
    )
    var storageKeyFile: String?

    @Option(help: "A storage key of before a rotation, still read with (repeatable); keys are sealed anew at start.")
    var previousStorageKeyFile: [String] = []

    @Option(help: "Seconds a kiosk's event may be ahead of this server's clock (beyond: refused, check NTP).")
    var clockSkewSeconds = 120

    @Option(
        help: """
            Seconds after which a kiosk's event counts as late: its ticket joins the line when the event arrived \
            (behind everyone already waiting), not when the kiosk says it happened.
            """
    )
    var lateEventSeconds = 60

    @Option(
        help: """
            Requests one client address may send: BURST/SECONDS (that many at once, then one per SECONDS). \
            Beyond, its requests wait their turn (up to 10 s, then it is disconnected).
            """
    )
    var requestsPerAddress = ConnectionLimits().requestsPerAddress

    @Option(
        help: """
            Days raw events are kept (367 or more: a day's figures and CSV reach 366 days back); older ones are \
            removed once the stores' kept state covers them.
            """
    )
    var keepEventsDays = 400

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    func validate() throws {
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-certificate and --tls-key go together: give both files, or neither")
        }
        guard (1...1000).contains(openTicketsPerPlace) else {
            throw ValidationError("--open-tickets-per-place: 1 to 1000")
        }
        guard (1...366).contains(bookingHorizonDays) else { throw ValidationError("--booking-horizon-days: 1 to 366") }
        guard (0...1000).contains(bookingsPerHolder) else { throw ValidationError("--bookings-per-holder: 0 to 1000") }
        guard (367...36_600).contains(keepEventsDays) else {
            throw ValidationError("--keep-events-days: 367 to 36600 (a day's figures reach 366 days back)")
        }
        guard (1...3600).contains(clockSkewSeconds), (1...3600).contains(lateEventSeconds) else {
            throw ValidationError("--clock-skew-seconds and --late-event-seconds: 1 to 3600")
        }
        guard maxConnections >= 16, maxConnectionsPerAddress >= 1 else {
            throw ValidationError("--max-connections: at least 16; --max-connections-per-address: at least 1")
        }
    }

    /// The path of a credential systemd passed the unit (`LoadCredential=`), if it did.
    static func credential(_ name: String) -> String? {
        guard let directory = ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"] else { return nil }
        let path = directory + "/" + name
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    func run() async throws {
        let token: String
        if let file = adminTokenFile {
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
            throw ValidationError("no admin token: pass --admin-token-file or set CLUP_ADMIN_TOKEN")
        }
        unblockStopSignals()
        let logger = KeyValueLogHandler.bootstrap(program: "clup-server", level: logLevel)
        ReplicaMetrics.bootstrap()
        var options = ServerApp.Options(adminToken: token)
        options.host = host
        options.port = port
        options.database = database
        options.statusURL = statusURL
        options.callWindowMinutes = callWindowMinutes
        options.trustedProxies = trustedProxy
        options.clockSkew = .seconds(clockSkewSeconds)
        options.lateEventAfter = .seconds(lateEventSeconds)
        options.storageKeyFile = storageKeyFile ?? Self.credential("storage-key")
        options.previousStorageKeyFiles = previousStorageKeyFile
        if let tlsCertificate, let tlsKey {
            options.tls = .init(certificateChain: tlsCertificate, privateKey: tlsKey)
        }
        options.connections.total = min(maxConnections, Self.raiseOpenFileLimit() - 64)
        options.connections.perAddress = maxConnectionsPerAddress
        options.connections.requestsPerAddress = requestsPerAddress
        options.limits.ticketsPerAddress = ticketsPerAddress
        options.limits.newHoldersPerAddress = newHoldersPerAddress
        options.limits.ticketsPerStore = ticketsPerStore
        options.limits.bookingsPerAddress = bookingsPerAddress
        options.limits.bookingsPerStore = bookingsPerStore
        options.limits.openTicketsPerPlace = openTicketsPerPlace
        options.limits.work = ticketWork.rule
        options.keepEventsDays = keepEventsDays
        options.limits.bookingHorizonDays = bookingHorizonDays
        options.limits.maxBookingsPerHolder = bookingsPerHolder
        let server: ServerApp
        do {
            server = try await ServerApp.build(options, logger: logger)
        } catch {
            FileHandle.standardError.write(Data("clup-server: \(error)\n".utf8))
            throw ExitCode(78)
        }
        if options.tls == nil, !["127.0.0.1", "::1", "localhost"].contains(host), trustedProxy.isEmpty {
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

/// `--ticket-work`: `BASE-MAX` bits (1 to 28; BASE ≤ MAX), or `off`.
struct WorkSetting: ExpressibleByArgument {
    var rule: WorkRule?

    init(_ rule: WorkRule?) { self.rule = rule }

    init?(argument: String) {
        if argument == "off" {
            rule = nil
            return
        }
        let parts = argument.split(separator: "-")
        guard parts.count == 2, let base = Int(parts[0]), let most = Int(parts[1]), (1...28).contains(base),
            (base...28).contains(most)
        else { return nil }
        rule = WorkRule(baseBits: base, maxBits: most)
    }

    var defaultValueDescription: String { rule.map { "\($0.baseBits)-\($0.maxBits)" } ?? "off" }
}
