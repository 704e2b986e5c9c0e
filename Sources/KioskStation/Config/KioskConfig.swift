import Drivers
import Foundation
import KioskCore
import ServiceSupport
import StrictTOML

/// kioskd's configuration: one struct per section, each key with its default, read in one place
/// (``load(path:)``). The shipped `config/kioskd.toml` lists every key commented out with its default.
public struct KioskConfig: Sendable, Equatable {
    public struct Store: Sendable, Equatable {
        /// The store's id on clup-server (required).
        public var id: StoreID
        public var name = "CLup store"
        /// The store's weekly hours until clup-server gives them (`opening_time`, `closing_time`, `closed_days`
        /// and `tickets_before_opening_minutes`, or `hours` for a week that differs by day): a kiosk that
        /// synced once follows the server's. Without a closing time the store never closes and the day turns
        /// at the opening time.
        public var hours = StoreHours.openAllDay
        /// The store's IANA time zone (`time_zone`); absent or empty: the zone clup-server gives the store.
        public var timeZone: StoreTimeZone?
        public var capacity = 50
        public var averageVisit: Duration = .seconds(20 * 60)
        /// Upper-case URL the QR starts with; the ticket's signed code follows it.
        public var statusURL = "HTTPS://CLUP.EXAMPLE/T/"

        public init(id: StoreID) {
            self.id = id
        }
    }

    public struct Device: Sendable, Equatable {
        public var id: DeviceID = ProcessInfo.processInfo.hostName
        public var stateDirectory = "/var/lib/kioskd"

        public init() {}
    }

    public struct Printer: Sendable, Equatable {
        public var enabled = true
        public var address = "usb://"
        public var profile = "generic-80mm"
        public var profileDirectories: [String] = []
        /// One or two letters before the ticket number (A042); one per printer of a store.
        public var codePrefix = "A"
        public var takeSensor: TakeSensor = .auto
        public var pollInterval: Duration = .milliseconds(100)
        public var debounce: Duration = .milliseconds(30)
        /// Tickets one roll holds (`roll_tickets`; 0 or absent: unknown), for the estimate of tickets left the
        /// kiosk reports.
        public var rollTickets: Int?
        /// A presenter printer that can retract pulls back a ticket nobody took for this long, voids it and
        /// presents a fresh one (`retract_after_seconds`; absent: only at the business day's start).
        public var retractAfter: Duration?
        public var qr: EscPosEncoder.QRMode = .auto
        public var footer = ""
        /// A 1-bit PBM (P1 or P4) printed above the store name.
        public var logo = ""
        /// Large print for people with low vision: a bigger number, the people ahead and the wait in large type.
        public var largePrint = false

        public init() {}
    }

    public struct Door: Sendable, Equatable {
        public var enabled = false
        /// `serial:///dev/ttyACM0?baud=9600` or `evdev:///dev/input/by-id/...-event-kbd`.
        public var scanner = "serial:///dev/ttyACM0"
        /// What ends a scan on a serial scanner: cr, lf, crlf or tab.
        public var suffix: ScanFramer.Suffix = .cr
        public var callWindowMinutes = 10
        /// An input device whose key counts an exit (a USB foot switch): the path behind `evdev://`.
        public var exitInput: String?
        public var exitKey: ExitKey = .any
        /// Bytes sent to a serial scanner after an admission / a refusal (its beep or LED command).
        public var feedbackAdmit: [UInt8] = []
        public var feedbackRefuse: [UInt8] = []
        /// The light, the gate and the exit beams on GPIO lines.
        public var lines = DoorLines()

        public init() {}
    }

    public struct Sync: Sendable, Equatable {
        /// clup-server's base URL, e.g. `https://clup.example`; empty: this kiosk runs alone.
        public var server = ""
        /// The credential the server gave when this kiosk was enrolled.
        public var credential = ""
        /// Whether the credential is written in the configuration itself (allowed only where others cannot
        /// read that file).
        var credentialInline = false
        /// A PEM file of the CA certificates that sign the server's certificate (a private CA); nil: the
        /// system's CA store.
        public var caFile: String?
        /// Plain `http://` to a server that is not on this machine: the credential and the store's events
        /// travel in clear, so only on a private network the operator vouches for.
        public var insecure = false
        public var pullWaitSeconds = 25
        /// Events per push.
        public var batch = 500

        public init() {}

        public var enabled: Bool { !server.isEmpty }
        /// A server and no credential: the kiosk pairs by a printed code (``KioskPairer``), or starts with the
        /// pairing it kept (``PairedKiosk``).
        public var pairs: Bool { enabled && credential.isEmpty }
    }

    public struct HTTP: Sendable, Equatable {
        public var host = "127.0.0.1"
        public var port = 8080
        /// Host names (or addresses) the local pages answer to besides loopback and `host`: a browser's request
        /// for any other name (a page of another site that rebound its DNS name to this box) is refused.
        public var serverNames: [String] = []
        /// The manager page's password as a scrypt hash (`manager_password`, made by `kioskd manager-password`):
        /// without it, the page's buttons work only on the box itself.
        public var managerPassword: PasswordHash?

        public init() {}

        /// Every name a request's `Host` may carry (lower case, without a port).
        public var allowedHosts: Set<String> {
            var names: Set<String> = ["localhost", "127.0.0.1", "::1", "[::1]"]
            if !["0.0.0.0", "::", ""].contains(host) { names.insert(host.lowercased()) }
            for name in serverNames { names.insert(name.lowercased()) }
            return names
        }
    }

    /// Whether a host name or address is this machine: `localhost`, 127.0.0.0/8 (also mapped into IPv6, as a
    /// dual-stack listener reports an IPv4 peer) or `::1`, with or without brackets.
    static func isLoopback(host: String) -> Bool {
        var host = host.lowercased()
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" || host == "::1" { return true }
        if host.hasPrefix("::ffff:") { host = String(host.dropFirst("::ffff:".count)) }
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) == 1 && UInt32(bigEndian: address.s_addr) >> 24 == 127
    }

    public var store: Store
    public var device = Device()
    public var printer = Printer()
    public var door = Door()
    public var sync = Sync()
    public var http = HTTP()
    public var voice = Voice()
    public var logLevel = "info"

    public init(store: Store) {
        self.store = store
    }

    public static func load(path: String) throws(TOMLFileError) -> KioskConfig {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw TOMLFileError(file: path, key: "", unreadable(path))
        }
        let config = try parse(text, file: path)
        if config.sync.credentialInline, let mode = permissions(of: path), mode & 0o004 != 0 {
            throw TOMLFileError(
                file: path,
                key: "sync.credential",
                "the credential is in a file everyone on this machine can read — put it in /etc/kioskd/credential "
                    + "(mode 600, owner kioskd) and set credential_file = \"/etc/kioskd/credential\" instead"
            )
        }
        return config
    }

    /// Why the configuration at `path` cannot be read, and what to do, in a sentence.
    static func unreadable(_ path: String) -> String {
        if access(path, F_OK) != 0 {
            return "there is no configuration file here — install the clup-kiosk package (it puts one there), or "
                + "copy config/kioskd.toml there and edit it"
        }
        if access(path, R_OK) != 0 {
            return "this user cannot read the configuration — make it readable to kioskd (the package's is mode 644)"
        }
        return "the configuration is not UTF-8 text — save it as UTF-8"
    }

    /// The store id the shipped configuration holds until an installer sets the store's own.
    public static let placeholderStore = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// A file's permission bits, or nil when it cannot be looked at.
    static func permissions(of path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    public static func parse(_ text: String, file: String) throws(TOMLFileError) -> KioskConfig {
        let root = try StrictTable.parse(text, file: file)
        guard let storeTable = try root.table("store") else {
            throw root.error("store", "missing: the [store] section with at least id = \"<store UUID>\"")
        }
        // Without an id the kiosk pairs (with `[sync] server` and no credential) or is refused at start.
        let idText = try storeTable.string("id") ?? placeholderStore.uuidString
        guard let storeID = UUID(uuidString: idText) else {
            throw storeTable.error("id", "'\(idText)' is not a UUID")
        }
        var config = KioskConfig(store: Store(id: storeID))
        config.store.name = try storeTable.string("name") ?? config.store.name
        config.store.hours = try parseHours(storeTable)
        if let zone = try storeTable.string("time_zone"), !zone.isEmpty {
            do { config.store.timeZone = try TimeZoneDirectory.system.zone(named: zone) } catch {
                throw storeTable.error("time_zone", "\(error.description) (the tzdata package has the names)")
            }
        }
        config.store.capacity = try storeTable.int("capacity", in: StoreCapacity.range) ?? config.store.capacity
        if let minutes = try storeTable.int("average_visit_minutes", in: 1...1440) {
            config.store.averageVisit = .seconds(minutes * 60)
        }
        if let url = try storeTable.string("status_url") {
            guard TicketCodec.isValidPrefix(url) else {
                throw storeTable.error(
                    "status_url",
                    "must be upper case (QR alphanumeric: A-Z 0-9 $%*+-./: and space) and at most "
                        + "\(TicketCodec.maxPrefixLength) characters, e.g. \"HTTPS://CLUP.EXAMPLE/T/\""
                )
            }
            config.store.statusURL = url
        }
        try storeTable.rejectUnknownKeys()

        if let device = try root.table("device") {
            config.device.id = try device.string("id") ?? config.device.id
            config.device.stateDirectory = try device.string("state_directory") ?? config.device.stateDirectory
            try device.rejectUnknownKeys()
        }
        if let printer = try root.table("printer") {
            try parsePrinter(printer, into: &config.printer)
        }
        if let door = try root.table("door") {
            config.door.enabled = try door.bool("enabled") ?? config.door.enabled
            if let scanner = try door.string("scanner") {
                guard scanner.hasPrefix("serial:///") || scanner.hasPrefix("evdev:///") else {
                    throw door.error(
                        "scanner",
                        "'\(scanner)' — use serial:///dev/ttyACM0?baud=9600 or evdev:///dev/input/eventN"
                    )
                }
                config.door.scanner = scanner
            }
            config.door.suffix = try door.choice("suffix", ScanFramer.Suffix.self) ?? config.door.suffix
            config.door.callWindowMinutes =
                try door.int("call_window_minutes", in: 1...240) ?? config.door.callWindowMinutes
            try parseDoorInputs(door, into: &config.door)
            try parseDoorLines(door, into: &config.door.lines)
            try door.rejectUnknownKeys()
        }
        if let sync = try root.table("sync") {
            try parseSync(sync, into: &config.sync)
        }
        if let http = try root.table("http") {
            config.http.host = try http.string("host") ?? config.http.host
            config.http.port = try http.int("port", in: 0...65535) ?? config.http.port
            if let names = try http.strings("server_names") {
                guard names.allSatisfy({ TextLimit(1...253).allows($0) && !$0.contains(where: \.isWhitespace) })
                else { throw http.error("server_names", "host names, e.g. [\"kiosk-1.store.lan\"]") }
                config.http.serverNames = names
            }
            if let text = try http.string("manager_password") {
                guard let hash = PasswordHash(text: text) else {
                    throw http.error(
                        "manager_password",
                        "not a password hash — run `kioskd manager-password` and paste the line it prints"
                    )
                }
                config.http.managerPassword = hash
            }
            try http.rejectUnknownKeys()
        }
        if let voice = try root.table("voice") {
            try parseVoice(voice, into: &config.voice)
        }
        if let log = try root.table("log") {
            if let level = try log.string("level") {
                guard ["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(level) else {
                    throw log.error("level", "'\(level)' — use trace, debug, info, notice, warning, error or critical")
                }
                config.logLevel = level
            }
            try log.rejectUnknownKeys()
        }
        try root.rejectUnknownKeys()
        return config
    }

    private static func parseSync(_ table: StrictTable, into sync: inout Sync) throws(TOMLFileError) {
        if let server = try table.string("server"), !server.isEmpty {
            guard server.hasPrefix("http://") || server.hasPrefix("https://"), URL(string: server)?.host != nil else {
                throw table.error("server", "'\(server)' — use the server's base URL, e.g. \"https://clup.example\"")
            }
            sync.server = server
        }
        sync.insecure = try table.bool("insecure") ?? sync.insecure
        if sync.server.hasPrefix("http://"), !sync.insecure, !Sync.isLoopback(sync.server) {
            throw table.error(
                "server",
                "'\(sync.server)' is plain HTTP: the kiosk's credential and the store's events would travel in "
                    + "clear — use https:// (with ca_file for a private CA), or set insecure = true on a private "
                    + "network you trust"
            )
        }
        if let caFile = try table.string("ca_file"), !caFile.isEmpty {
            do {
                _ = try Sync.trustRoots(caFile)
            } catch {
                throw table.error("ca_file", "\(error)")
            }
            sync.caFile = caFile
        }
        if let credential = try table.string("credential") {
            sync.credential = credential
            sync.credentialInline = !credential.isEmpty
        }
        if let file = try table.string("credential_file"), !file.isEmpty {
            if let mode = Self.permissions(of: file), mode & 0o077 != 0 {
                throw table.error(
                    "credential_file",
                    "\(file) is readable by others (mode \(String(mode, radix: 8))) — `chmod 600 \(file)` and "
                        + "`chown kioskd \(file)`: the credential lets anyone add events to the store"
                )
            }
            do {
                sync.credential = try String(contentsOfFile: file, encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                sync.credentialInline = false
            } catch {
                throw table.error("credential_file", "cannot read \(file) (\(error))")
            }
        }
        sync.pullWaitSeconds = try table.int("pull_wait_seconds", in: 0...60) ?? sync.pullWaitSeconds
        sync.batch = try table.int("batch", in: 1...1000) ?? sync.batch
        try table.rejectUnknownKeys()
    }

    private static func parseDoorInputs(_ table: StrictTable, into door: inout Door) throws(TOMLFileError) {
        if let input = try table.string("exit_input"), !input.isEmpty {
            guard input.hasPrefix("evdev:///") else {
                throw table.error("exit_input", "'\(input)' — use evdev:///dev/input/by-id/<foot switch>-event-kbd")
            }
            door.exitInput = String(input.dropFirst("evdev://".count))
        }
        if let key = try table.string("exit_key") {
            guard let exitKey = ExitKey(key) else {
                throw table.error(
                    "exit_key",
                    "'\(key)' — use \"any\", a key name such as \"KEY_F13\" or \"KEY_B\", or its number "
                        + "(`evtest` shows what the device sends)"
                )
            }
            door.exitKey = exitKey
        }
        for (key, path) in [("feedback_admit", \Door.feedbackAdmit), ("feedback_refuse", \Door.feedbackRefuse)] {
            guard let text = try table.string(key), !text.isEmpty else { continue }
            guard door.scanner.hasPrefix("serial://") else {
                throw table.error(key, "only a serial scanner takes commands; remove it for an evdev scanner")
            }
            guard text.utf8.count <= 64 else { throw table.error(key, "longer than 64 bytes") }
            door[keyPath: path] = Array(text.utf8)
        }
    }

    private static func parsePrinter(_ table: StrictTable, into printer: inout Printer) throws(TOMLFileError) {
        printer.enabled = try table.bool("enabled") ?? printer.enabled
        if let address = try table.string("address") {
            do {
                _ = try PrinterAddress(parsing: address)
            } catch {
                throw table.error("address", error.message)
            }
            printer.address = address
        }
        printer.profile = try table.string("profile") ?? printer.profile
        printer.profileDirectories = try table.strings("profile_directories") ?? printer.profileDirectories
        if let prefix = try table.string("code_prefix") {
            guard TicketCode.isValidPrefix(prefix) else {
                throw table.error("code_prefix", "'\(prefix)' must be one or two upper-case letters, e.g. \"A\"")
            }
            printer.codePrefix = prefix
        }
        printer.takeSensor = try table.choice("take_sensor", TakeSensor.self) ?? printer.takeSensor
        if let ms = try table.int("poll_interval_ms", in: 10...5000) { printer.pollInterval = .milliseconds(ms) }
        if let ms = try table.int("debounce_ms", in: 0...2000) { printer.debounce = .milliseconds(ms) }
        if let roll = try table.int("roll_tickets", in: 0...100_000) { printer.rollTickets = roll == 0 ? nil : roll }
        if let seconds = try table.int("retract_after_seconds", in: 0...86_400) {
            printer.retractAfter = seconds == 0 ? nil : .seconds(seconds)
        }
        printer.qr = try table.choice("qr", EscPosEncoder.QRMode.self) ?? printer.qr
        printer.footer = try table.string("footer") ?? printer.footer
        printer.largePrint = try table.bool("large_print") ?? printer.largePrint
        printer.logo = try table.string("logo") ?? printer.logo
        try table.rejectUnknownKeys()
    }
}
