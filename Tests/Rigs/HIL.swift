@_exported import ClusterRigs
import DeviceEmulators
import Drivers
import Foundation
import Logging
import Testing

/// Host hardware-in-the-loop helpers: external tools and an emulator on real kernel interfaces.
///
/// `make test` sets `CLUP_TEST_STRICT=1` after installing the tools, so a missing tool fails the run there;
/// a plain `swift test` skips those tests and says which tool is missing.
enum HIL {
    static var strict: Bool { Programs.strict }

    static func which(_ tool: String) -> String? { Programs.which(tool) }

    /// Runs when the tool is installed, or always under `make test` (where its absence is a failure).
    static func needs(_ tool: String) -> Bool { strict || which(tool) != nil }

    static var isRoot: Bool { Programs.isRoot }

    /// The Python with python-escpos: `CLUP_PYTHON`, else `.venv-test/bin/python` made by `make test`.
    static var python: String? {
        if let configured = ProcessInfo.processInfo.environment["CLUP_PYTHON"] { return configured }
        let local = "\(packageRoot)/.venv-test/bin/python"
        return FileManager.default.isExecutableFile(atPath: local) ? local : nil
    }

    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/"
            && !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path)
        {
            url.deleteLastPathComponent()
        }
        return url.path
    }()

    typealias ProcessResult = Programs.ProcessResult

    /// Runs a program to completion and captures its output.
    static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil
    ) throws -> ProcessResult {
        try Programs.run(executable, arguments, environment: environment)
    }

    /// Decodes every QR code in a PNG with zbarimg, an independent decoder.
    static func decodeQR(png path: String) throws -> [String] {
        let result = try run("zbarimg", ["--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", path])
        return result.output.split(separator: "\n").map(String.init)
    }

    static func temporaryDirectory(_ name: String) -> String { Programs.temporaryDirectory(name) }
}

/// An in-process emulator serving TCP and a pty, writing PNGs to a temporary directory.
extension HIL {
    /// A directory with a variant of a shipped profile that has no `retract` command: the same printer as one
    /// whose presenter cannot retract (or has retracting off in its setup).
    static func profileWithoutRetract(_ id: String) throws -> String {
        let directory = temporaryDirectory("profiles")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let shipped = try String(contentsOfFile: "\(PrinterProfile.bundledDirectory)/\(id).toml", encoding: .utf8)
        let lines = shipped.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("retract") }
        try lines.joined(separator: "\n").write(toFile: "\(directory)/\(id).toml", atomically: true, encoding: .utf8)
        return directory
    }
}

extension HIL {
    /// A directory with a variant of a shipped profile whose full status also says when the presented ticket
    /// went back in (`ticket_retracted`): a printer that tells a retract from a take.
    static func profileThatTellsRetracts(_ id: String) throws -> String {
        let directory = temporaryDirectory("profiles")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let shipped = try String(contentsOfFile: "\(PrinterProfile.bundledDirectory)/\(id).toml", encoding: .utf8)
        let told = shipped.replacingOccurrences(
            of: "[status.custom_full]\n",
            with: "[status.custom_full]\nticket_retracted = { byte = 1, mask = 0x40 }\n"
        )
        try told.write(toFile: "\(directory)/\(id).toml", atomically: true, encoding: .utf8)
        return directory
    }
}

final class EmulatorRig {
    let emulator: PrinterEmulator
    let tcp: TCPEndpoint
    let pty: PtyEndpoint
    let output: String

    /// `directories`: where to look for the profile before the shipped ones (a test's own variant).
    init(profile id: String, directories: [String] = []) throws {
        let profile = try PrinterProfile.load(named: id, extraDirectories: directories)
        output = HIL.temporaryDirectory("emulator")
        var logger = Logger(label: "emulator")
        logger.logLevel = .warning
        emulator = try PrinterEmulator(profile: profile, outputDirectory: output, logger: logger)
        tcp = try TCPEndpoint(emulator: emulator, port: 0, logger: logger)
        pty = try PtyEndpoint(emulator: emulator, linkPath: "\(output)/tty", logger: logger)
    }

    var profile: PrinterProfile { emulator.profile }
    var tcpAddress: String { "tcp://127.0.0.1:\(tcp.port)" }
    var serialAddress: String { "serial://\(pty.path)?baud=19200" }

    func stop() {
        tcp.stop()
        pty.stop()
        try? FileManager.default.removeItem(atPath: output)
    }

    /// The tickets once `count` were cut (within `timeout`), or an error saying how many were.
    @discardableResult
    func requireTickets(_ count: Int, timeout: Duration = .seconds(10)) async throws -> [PrintedTicket] {
        let deadline = ContinuousClock.now + timeout
        while emulator.ticketCount < count && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        guard emulator.ticketCount >= count else {
            throw StationRig.Missing(description: "only \(emulator.ticketCount) of \(count) tickets after \(timeout)")
        }
        return emulator.tickets
    }
}
