import CLupServer
import Foundation
import Rigs
import StrictTOML
import Testing

/// clup-server's configuration file: the shipped file (every key commented out) gives the defaults, each key
/// sets its setting, and a mistake stops the start with the file, the key and what to do.
@Suite struct ServerSettingsTests {
    static let shipped = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("config/clup-server.toml").path

    @Test func theShippedFileIsTheDefaults() throws {
        let settings = try ServerSettings.read(Self.shipped)
        let defaults = ServerSettings()
        #expect(settings.options.host == defaults.options.host && settings.options.port == defaults.options.port)
        #expect(settings.options.database == defaults.options.database)
        #expect(settings.options.limits.ticketsPerAddress == defaults.options.limits.ticketsPerAddress)
        #expect(settings.options.limits.work == defaults.options.limits.work)
        #expect(settings.options.keepEventsDays == 400 && settings.logLevel == "info")
        #expect(settings.adminTokenFile == nil && settings.options.tls == nil)
    }

    /// Every key the shipped file lists, uncommented with its default, reads back as that default.
    @Test func everyKeyTheShippedFileListsIsRead() throws {
        let text = try String(contentsOfFile: Self.shipped, encoding: .utf8)
        let uncommented = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("#") && line.dropFirst().first?.isLetter == true ? line.dropFirst() : line
        }.joined(separator: "\n")
        let settings = try ServerSettings.parse(uncommented, file: "clup-server.toml")
        #expect(settings.options.connections.total == 10_000 && settings.options.connections.perAddress == 64)
        #expect(settings.options.clockSkew == .seconds(120) && settings.options.lateEventAfter == .seconds(60))
    }

    @Test func eachKeySetsItsSetting() throws {
        let settings = try ServerSettings.parse(
            """
            [server]
            host = "10.0.0.11"
            port = 9000
            admin_token_file = "/etc/clup-server/admin-token"
            trusted_proxies = ["10.0.0.2/32"]
            log_level = "debug"
            [database]
            location = "postgres://clup@db/chain"
            keep_events_days = 500
            [tls]
            certificate = "/etc/clup-server/tls/fullchain.pem"
            key = "/etc/clup-server/tls/privkey.pem"
            [limits]
            tickets_per_address = "3/30"
            ticket_work = "off"
            booking_horizon_days = 7
            requests_per_kiosk = "500/0.1"
            [kiosks]
            clock_skew_seconds = 30
            """,
            file: "clup-server.toml"
        )
        #expect(settings.options.host == "10.0.0.11" && settings.options.port == 9000)
        #expect(settings.adminTokenFile == "/etc/clup-server/admin-token" && settings.logLevel == "debug")
        #expect(settings.options.trustedProxies.count == 1)
        #expect(settings.options.database == "postgres://clup@db/chain" && settings.options.keepEventsDays == 500)
        #expect(settings.options.tls?.privateKey == "/etc/clup-server/tls/privkey.pem")
        #expect(settings.options.limits.ticketsPerAddress.description == "3/30")
        #expect(settings.options.limits.work == nil && settings.options.limits.bookingHorizonDays == 7)
        #expect(settings.options.clockSkew == .seconds(30))
        #expect(settings.options.connections.requestsPerKiosk.description == "500/0.1")
    }

    @Test(arguments: [
        ("[server]\nprot = 8090", "server.prot"),
        ("[database]\nkeep_events_days = 30", "database.keep_events_days"),
        ("[limits]\ntickets_per_address = \"many\"", "limits.tickets_per_address"),
        ("[limits]\nticket_work = \"20-14\"", "limits.ticket_work"),
        ("[server]\ntrusted_proxies = [\"the balancer\"]", "server.trusted_proxies"),
        ("[tls]\ncertificate = \"/etc/c.pem\"", "tls.key"),
        ("[server]\nport = \"8090\"", "server.port"),
    ])
    func aMistakeNamesItsKey(_ text: String, _ key: String) {
        #expect {
            _ = try ServerSettings.parse(text, file: "clup-server.toml")
        } throws: { error in
            (error as? TOMLFileError)?.key == key && "\(error)".hasPrefix("clup-server.toml: key '\(key)'")
        }
    }
}

/// clup-server as its unit starts it: the file's settings, the flags over them, and a broken file refused.
@Suite struct ServerConfigFileProcessTests {
    static let program = Programs.besideThisProgram("clup-server")
    static let token = ["CLUP_ADMIN_TOKEN": String(repeating: "a1", count: 32)]

    /// Starts clup-server and waits until `file` appears (the database it opened), then stops it.
    func start(_ arguments: [String], until file: String) async throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.program)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(Self.token) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        for _ in 0..<100 {
            if FileManager.default.fileExists(atPath: file) { return true }
            guard process.isRunning else { return false }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    @Test func theFilesSettingsApplyAndAFlagWins() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clup-config-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = "\(directory)/clup-server.toml"
        try """
        [server]
        port = 0
        [database]
        location = "\(directory)/from-file.sqlite"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        #expect(try await start(["--config", config], until: "\(directory)/from-file.sqlite"))
        let flag = "\(directory)/from-flag.sqlite"
        #expect(try await start(["--config", config, "--database", flag, "--port", "0"], until: flag))
    }

    @Test func aBrokenFileStopsTheStartNamingTheKey() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("clup-\(UUID()).toml").path
        try "[limits]\ntickets_per_adress = \"5/60\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let run = try Programs.run(Self.program, ["--config", config], environment: Self.token)
        #expect(run.status == 78)
        #expect(run.error.contains("key 'limits.tickets_per_adress'"), "\(run.error)")
    }
}
