import Foundation
import Glibc

/// ClusterRigs: the real servers a test or a benchmark starts on this machine — a private PostgreSQL cluster
/// and clup-server processes — and the few process helpers they need. No test framework and no `@testable`
/// import: the tests (through Rigs) and clup-bench's fleet group (a release build) share one implementation.
public enum Programs {
    /// `make test` sets `CLUP_TEST_STRICT=1` after installing the tools: a missing one is a failure there.
    public static var strict: Bool { ProcessInfo.processInfo.environment["CLUP_TEST_STRICT"] == "1" }

    public static var isRoot: Bool { getuid() == 0 }

    /// A program built next to the running one (the test bundle's or clup-bench's build folder).
    public static func besideThisProgram(_ name: String) -> String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path
    }

    public struct ProcessResult: Sendable {
        public var status: Int32
        public var output: String
        public var error: String
    }

    /// Runs a program (by path, or by name on PATH) to completion and captures its output.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil
    ) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(
            fileURLWithPath: executable.hasPrefix("/") ? executable : (which(executable) ?? executable)
        )
        process.arguments = arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProcessResult(
            status: process.terminationStatus,
            output: String(decoding: outData, as: UTF8.self),
            error: String(decoding: errData, as: UTF8.self)
        )
    }

    /// The path of `tool` on PATH, or nil.
    public static func which(_ tool: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(directory)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// A new directory under the system's temporary folder.
    public static func temporaryDirectory(_ name: String) -> String {
        let path = NSTemporaryDirectory() + "clup-\(name)-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A TCP port nobody listens on now on 127.0.0.1 (bound and released; a server may still lose it to a race).
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw PortError() }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw PortError() }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    struct PortError: Error, CustomStringConvertible {
        var description: String { "cannot bind a loopback port: errno \(errno)" }
    }
}
