import ArgumentParser
import CLupServer
import Foundation
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

    @Option(help: "SQLite database file (created with its schema on first start).")
    var database = "/var/lib/clup-server/clup.sqlite"

    @Option(help: "File holding the system manager's token (else the CLUP_ADMIN_TOKEN environment variable).")
    var adminTokenFile: String?

    @Option(help: "Upper-case URL every ticket QR starts with: the same as the kiosks' [store] status_url.")
    var statusURL = "HTTPS://CLUP.EXAMPLE/T/"

    @Option(help: "Minutes a called ticket may go unused before it expires (as the doors' call_window_minutes).")
    var callWindowMinutes = 10

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

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
        LoggingSystem.bootstrap { KeyValueLogHandler.standardError(label: $0) }
        var logger = Logger(label: "clup-server")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        var options = ServerApp.Options(adminToken: token)
        options.host = host
        options.port = port
        options.databasePath = database
        options.statusURL = statusURL
        options.callWindowMinutes = callWindowMinutes
        let server: ServerApp
        do {
            server = try ServerApp.build(options, logger: logger)
        } catch {
            FileHandle.standardError.write(Data("clup-server: \(error)\n".utf8))
            throw ExitCode(78)
        }
        logger.notice("clup-server starting", metadata: ["stores": "\(server.logs.all.count)"])
        let systemd = SystemdSupervision(logger: logger, ready: { server.port.current != nil })
        try await ServiceGroup(running: server.services + [systemd], logger: logger, handleSignals: true).run()
    }
}
