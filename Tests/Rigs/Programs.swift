import Foundation
import Glibc
import KioskStation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The programs the system tests start, and what they ask of them.
extension HIL {
    static var kioskd: String { Programs.besideThisProgram("kioskd") }
    static var clupServer: String { Programs.besideThisProgram("clup-server") }
    /// A TCP port nobody listens on now (bound and released).
    static func freePort() throws -> Int { try Programs.freePort() }
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
