import Foundation
import Glibc

/// A private PostgreSQL cluster for one suite: Debian's server binaries (`postgresql`), its own data directory
/// in a temporary folder and its own port on 127.0.0.1, trust authentication for the `clup` role, never the
/// machine's own cluster. Run as the `postgres` user when the tests run as root (the server refuses root).
/// The server is this process's own child (not left behind by `pg_ctl`), so it is watched like any other
/// rig's program; ``stop()`` ends it (fast shutdown) and removes its files.
public final class PostgresRig: @unchecked Sendable {
    public let directory: String
    public private(set) var port = 0
    private let bin: String
    private let owner: String?
    private var server: Process?

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The newest server Debian installed (`/usr/lib/postgresql/<version>/bin`), nil when there is none.
    public static var binaries: String? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap { Int($0) }
        guard let newest = versions.max() else { return nil }
        let bin = "\(root)/\(newest)/bin"
        return FileManager.default.isExecutableFile(atPath: "\(bin)/postgres") ? bin : nil
    }

    /// Runs where Debian's server is installed, or always under `make test` (where its absence is a failure).
    public static var available: Bool { Programs.strict || binaries != nil }

    public init() throws {
        guard let bin = Self.binaries else {
            throw Failure(description: "no PostgreSQL server in /usr/lib/postgresql (apt install postgresql)")
        }
        self.bin = bin
        owner = Programs.isRoot ? "postgres" : nil
        directory = Programs.temporaryDirectory("postgres")
        if let owner { _ = try Programs.run("chown", [owner, directory]) }
        let (initdbPath, initdbArguments) = Self.invocation(owner, "\(bin)/initdb")
        let initdb = try Programs.run(
            initdbPath,
            initdbArguments
                + [
                    "-D", "\(directory)/data", "-U", "clup", "--auth=trust", "-E", "UTF8", "--no-sync",
                    "--no-instructions",
                ]
        )
        guard initdb.status == 0 else { throw Failure(description: "initdb failed: \(initdb.error)") }
        var started: Int?
        for _ in 0..<5 where started == nil {
            let candidate = try Programs.freePort()
            if try start(port: candidate) { started = candidate }
        }
        guard let started else {
            let log = (try? String(contentsOfFile: "\(directory)/server.log", encoding: .utf8)) ?? ""
            throw Failure(description: "PostgreSQL did not start:\n\(log.suffix(2000))")
        }
        port = started
    }

    /// Starts the server on `port`; true once it answers (false when it exited, e.g. the port was taken).
    private func start(port: Int) throws -> Bool {
        let process = Process()
        let (path, arguments) = Self.invocation(owner, "\(bin)/postgres")
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments =
            arguments + [
                "-D", "\(directory)/data", "-p", "\(port)", "-k", directory, "-c", "listen_addresses=127.0.0.1",
                "-c", "fsync=off", "-c", "max_connections=200",
            ]
        let log = "\(directory)/server.log"
        if !FileManager.default.fileExists(atPath: log) {
            _ = FileManager.default.createFile(atPath: log, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        handle.seekToEndOfFile()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        server = process
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline && process.isRunning {
            if try sql("SELECT 1", port: port).status == 0 { return true }
            usleep(50_000)
        }
        stopServer()
        return false
    }

    /// A new empty database in this cluster; its `postgres://` URL.
    public func createDatabase(_ name: String = "clup_\(UUID().uuidString.prefix(8).lowercased())") throws -> String {
        let result = try sql("CREATE DATABASE \(name)")
        guard result.status == 0 else { throw Failure(description: "CREATE DATABASE \(name): \(result.error)") }
        return "postgres://clup@127.0.0.1:\(port)/\(name)"
    }

    /// Runs SQL with psql as the `clup` superuser (in `database`).
    @discardableResult
    public func sql(_ statement: String, database: String = "postgres") throws -> Programs.ProcessResult {
        try sql(statement, database: database, port: port)
    }

    private func sql(_ statement: String, database: String = "postgres", port: Int) throws -> Programs.ProcessResult {
        try Programs.run(
            "\(bin)/psql",
            [
                "-h", "127.0.0.1", "-p", "\(port)", "-U", "clup", "-d", database, "-v", "ON_ERROR_STOP=1", "-Atc",
                statement,
            ]
        )
    }

    /// Stops the server (fast: sessions end, the data stays) and starts it again on the same port.
    public func restart() throws {
        stopServer()
        guard try start(port: port) else { throw Failure(description: "PostgreSQL did not start again") }
    }

    public func stop() {
        stopServer()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Fast shutdown (SIGINT): open sessions are ended, committed data stays.
    private func stopServer() {
        guard let server else { return }
        if server.isRunning {
            kill(server.processIdentifier, SIGINT)
            server.waitUntilExit()
        }
        self.server = nil
    }

    /// As root, the cluster's programs run as its owner: setpriv changes the user and then is the program
    /// (no process in between, so signals reach the server itself).
    private static func invocation(_ owner: String?, _ program: String) -> (path: String, arguments: [String]) {
        guard let owner else { return (program, []) }
        return ("/usr/bin/setpriv", ["--reuid=\(owner)", "--regid=\(owner)", "--init-groups", "--", program])
    }
}
