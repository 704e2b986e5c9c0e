import Foundation
import StrictTOML

/// Everything clup-server can be told: ``ServerApp/Options``' defaults (the one place they are written), then the
/// configuration file (`--config`, TOML, `config/clup-server.toml` lists every key), then the flags given on the
/// command line, which win. Checked once, whichever way a value came.
public struct ServerSettings: Sendable {
    public var options = ServerApp.Options(adminToken: "")
    /// Where the system manager's token is (else `CLUP_ADMIN_TOKEN`).
    public var adminTokenFile: String?
    public var logLevel = "info"

    public init() {}

    /// The settings of a configuration file, over the defaults.
    public static func read(_ path: String) throws(TOMLFileError) -> ServerSettings {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw TOMLFileError(file: path, key: "", "cannot read it (\(error.localizedDescription))")
        }
        return try parse(text, file: path)
    }

    public static func parse(_ text: String, file: String) throws(TOMLFileError) -> ServerSettings {
        var settings = ServerSettings()
        let root = try StrictTable.parse(text, file: file)
        if let server = try root.table("server") { try settings.readServer(server) }
        if let database = try root.table("database") { try settings.readDatabase(database) }
        if let tls = try root.table("tls") {
            let certificate = try tls.string("certificate")
            let key = try tls.string("key")
            guard (certificate == nil) == (key == nil) else {
                throw tls.error(certificate == nil ? "certificate" : "key", "certificate and key go together")
            }
            if let certificate, let key { settings.options.tls = .init(certificateChain: certificate, privateKey: key) }
            try tls.rejectUnknownKeys()
        }
        if let limits = try root.table("limits") { try settings.readLimits(limits) }
        if let push = try root.table("push") { try settings.options.push.read(push) }
        if let kiosks = try root.table("kiosks") {
            if let skew = try kiosks.int("clock_skew_seconds", in: Self.kioskSeconds) {
                settings.options.clockSkew = .seconds(skew)
            }
            if let late = try kiosks.int("late_event_seconds", in: Self.kioskSeconds) {
                settings.options.lateEventAfter = .seconds(late)
            }
            try kiosks.rejectUnknownKeys()
        }
        try root.rejectUnknownKeys()
        return settings
    }

    private mutating func readServer(_ table: StrictTable) throws(TOMLFileError) {
        options.host = try table.string("host") ?? options.host
        options.port = try table.int("port", in: Self.port) ?? options.port
        options.statusURL = try table.string("status_url") ?? options.statusURL
        options.callWindowMinutes =
            try table.int("call_window_minutes", in: Self.callWindowMinutes) ?? options.callWindowMinutes
        adminTokenFile = try table.string("admin_token_file") ?? adminTokenFile
        logLevel = try table.string("log_level") ?? logLevel
        if let proxies = try table.strings("trusted_proxies") {
            options.trustedProxies = try proxies.map { (text) throws(TOMLFileError) in
                guard let cidr = CIDR(text) else {
                    throw table.error("trusted_proxies", "'\(text)' is not an address or CIDR, e.g. 10.0.0.0/24")
                }
                return cidr
            }
        }
        try table.rejectUnknownKeys()
    }

    private mutating func readDatabase(_ table: StrictTable) throws(TOMLFileError) {
        options.database = try table.string("location") ?? options.database
        options.keepEventsDays = try table.int("keep_events_days", in: Self.keepEventsDays) ?? options.keepEventsDays
        options.storageKeyFile = try table.string("storage_key_file") ?? options.storageKeyFile
        options.previousStorageKeyFiles = try table.strings("previous_storage_key_files") ?? []
        try table.rejectUnknownKeys()
    }

    private mutating func readLimits(_ table: StrictTable) throws(TOMLFileError) {
        func rule(_ key: String) throws(TOMLFileError) -> RateLimiter.Rule? {
            guard let text = try table.string(key) else { return nil }
            guard let rule = RateLimiter.Rule(text) else {
                throw table.error(key, "'\(text)' is not BURST/SECONDS, e.g. \"5/60\"")
            }
            return rule
        }
        options.limits.ticketsPerAddress = try rule("tickets_per_address") ?? options.limits.ticketsPerAddress
        options.limits.newHoldersPerAddress = try rule("new_holders_per_address") ?? options.limits.newHoldersPerAddress
        options.limits.ticketsPerStore = try rule("tickets_per_store") ?? options.limits.ticketsPerStore
        options.limits.bookingsPerAddress = try rule("bookings_per_address") ?? options.limits.bookingsPerAddress
        options.limits.bookingsPerStore = try rule("bookings_per_store") ?? options.limits.bookingsPerStore
        options.connections.requestsPerAddress =
            try rule("requests_per_address") ?? options.connections.requestsPerAddress
        options.connections.requestsPerKiosk = try rule("requests_per_kiosk") ?? options.connections.requestsPerKiosk
        options.connections.eventsPerKiosk = try rule("events_per_kiosk") ?? options.connections.eventsPerKiosk
        options.connections.ticketsPerKiosk = try rule("tickets_per_kiosk") ?? options.connections.ticketsPerKiosk
        if let work = try table.string("ticket_work") {
            guard let setting = WorkSetting(work) else {
                throw table.error("ticket_work", "'\(work)' is not BASE-MAX bits (1 to 28, e.g. \"14-20\") or \"off\"")
            }
            options.limits.work = setting.rule
        }
        options.limits.openTicketsPerPlace =
            try table.int("open_tickets_per_place", in: Self.openTicketsPerPlace) ?? options.limits.openTicketsPerPlace
        options.limits.bookingHorizonDays =
            try table.int("booking_horizon_days", in: Self.bookingHorizonDays) ?? options.limits.bookingHorizonDays
        options.limits.maxBookingsPerHolder =
            try table.int("bookings_per_holder", in: Self.bookingsPerHolder) ?? options.limits.maxBookingsPerHolder
        options.connections.total =
            try table.int("max_connections", in: Self.maxConnections) ?? options.connections.total
        options.connections.perAddress =
            try table.int("max_connections_per_address", in: Self.maxConnectionsPerAddress)
            ?? options.connections.perAddress
        try table.rejectUnknownKeys()
    }

    // MARK: The ranges, for the file and the flags alike

    public static let port = 0...65535
    public static let callWindowMinutes = 1...240
    /// Clock skew and lateness of a kiosk's events.
    public static let kioskSeconds = 1...3600
    public static let maxConnections = 16...1_000_000
    public static let maxConnectionsPerAddress = 1...1_000_000
    public static let keepEventsDays = 367...36_600
    public static let openTicketsPerPlace = 1...1000
    public static let bookingHorizonDays = 1...366
    public static let bookingsPerHolder = 0...1000
}

/// A proof-of-work setting as written (`--ticket-work`, `[limits] ticket_work`): `BASE-MAX` bits (1 to 28;
/// BASE ≤ MAX), or `off`.
public struct WorkSetting: Sendable {
    public var rule: WorkRule?

    public init(_ rule: WorkRule?) { self.rule = rule }

    public init?(_ text: String) {
        if text == "off" {
            rule = nil
            return
        }
        let parts = text.split(separator: "-")
        guard parts.count == 2, let base = Int(parts[0]), let most = Int(parts[1]), (1...28).contains(base),
            (base...28).contains(most)
        else { return nil }
        rule = WorkRule(baseBits: base, maxBits: most)
    }

    public var description: String { rule.map { "\($0.baseBits)-\($0.maxBits)" } ?? "off" }
}
