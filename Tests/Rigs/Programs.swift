import Foundation
import Glibc
import KioskStation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The programs the system tests start, and what they ask of them.
extension HIL {
    static var kioskd: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("kioskd").path
    }
    static var clupServer: String {
        URL(fileURLWithPath: kioskd).deletingLastPathComponent().appendingPathComponent("clup-server").path
    }
    /// A TCP port nobody listens on now (bound and released).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
    static func status(port: Int) async throws -> StationStatus {
        let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/status")!)
        return try JSONDecoder().decode(StationStatus.self, from: data)
    }
    static var chromiumReady: Bool {
        HIL.strict
            || (HIL.python != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"))
    }
    /// Asks the browser and expects "ok", reporting what it answered instead.
    static func ok(
        _ browser: LineProcess,
        _ command: String,
        sourceLocation: SourceLocation = #_sourceLocation
    )
        async
    {
        let answer = await browser.ask(command)
        #expect(answer == "ok", "\(command) → \(answer ?? "nothing")", sourceLocation: sourceLocation)
    }
}
