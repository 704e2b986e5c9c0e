import Foundation
import Glibc

/// clup-server as a program of its own (the one `make deb` packages), for what an in-process server cannot
/// show: `kill -9` in the middle of a request, SIGTERM and how long the process takes to go. Public limits are
/// opened (one loopback address, behind the load balancer, stands for a crowd); the load balancer on
/// 127.0.0.1 is its trusted proxy.
public final class ServerProcess: @unchecked Sendable {
    public let port: Int
    public let log: String
    private let database: String
    private let adminToken: String
    private var process: Process?

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// clup-server on a free loopback port with `database` (a SQLite file or a postgres:// URL), its log in
    /// `directory`/`name`.log.
    public init(database: String, directory: String, name: String, adminToken: String) throws {
        port = try Programs.freePort()
        self.adminToken = adminToken
        log = "\(directory)/\(name).log"
        self.database = database
        try start()
    }

    /// Starts the program (again, after a kill) on the same port; returns once `/healthz` answers.
    public func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Programs.besideThisProgram("clup-server"))
        let open = "1000000/1"
        process.arguments = [
            "--port", "\(port)", "--database", database, "--trusted-proxy", "127.0.0.1/32", "--log-level", "warning",
            "--tickets-per-address", open, "--new-holders-per-address", open, "--tickets-per-store", open,
            "--requests-per-address", open, "--ticket-work", "off",
            "--open-tickets-per-place", "1000",
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(["CLUP_ADMIN_TOKEN": adminToken]) {
            $1
        }
        if !FileManager.default.fileExists(atPath: log) {
            _ = FileManager.default.createFile(atPath: log, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        self.process = process
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw Failure(description: "clup-server exited: \(logText.suffix(2000))") }
            if (try? Programs.run("curl", ["-sf", "http://127.0.0.1:\(port)/healthz"]))?.status == 0 { return }
            usleep(50_000)
        }
        throw Failure(description: "clup-server did not answer on port \(port): \(logText.suffix(2000))")
    }

    public var isRunning: Bool { process?.isRunning ?? false }

    public var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// `kill -9`: no shutdown of any kind.
    public func kill9() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        // Bounded: a test must end even if the child is never reaped.
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(10_000) }
    }

    /// SIGTERM; how long until the process was gone (nil: still running after `limit`, then killed).
    public func terminate(limit: Duration = .seconds(15)) async -> Duration? {
        guard let process, process.isRunning else { return .zero }
        let start = ContinuousClock.now
        kill(process.processIdentifier, SIGTERM)
        while process.isRunning && ContinuousClock.now - start < limit { try? await Task.sleep(for: .milliseconds(5)) }
        guard !process.isRunning else {
            kill9()
            return nil
        }
        return ContinuousClock.now - start
    }

    public var pid: Int32? { process?.processIdentifier }

    public func stop() {
        kill9()
    }
}
