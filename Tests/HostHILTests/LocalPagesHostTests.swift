import Foundation
import Glibc
import KioskCore
import Testing

@testable import KioskStation
@testable import Rigs

/// kioskd's local pages against DNS rebinding (issue 43): a page of another site whose name was made to point
/// at the kiosk's address sends its own name as `Host` — and the old guard compared `Origin` with that same
/// `Host`, so it passed. The pages answer only to loopback, the listening address and `[http] server_names`,
/// GETs included.
@Suite(.serialized) struct LocalPagesHostTests {
    /// One raw request on loopback: the status line.
    static func request(_ port: Int, _ method: String, _ path: String, headers: [String: String]) throws -> String {
        let fd = try LoopbackSocket.connect(port: port)
        defer { close(fd) }
        let extra = headers.map { "\($0.key): \($0.value)\r\n" }.joined()
        let text = "\(method) \(path) HTTP/1.1\r\n\(extra)Content-Length: 0\r\nConnection: close\r\n\r\n"
        _ = Array(text.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var answer = [UInt8](repeating: 0, count: 256)
        let count = answer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        let head = String(decoding: answer.prefix(max(count, 0)), as: UTF8.self)
        return head.components(separatedBy: "\r\n").first ?? ""  // ("\r\n" is one Character)
    }

    @Test func thePagesAnswerOnlyToTheKiosksOwnNames() async throws {
        let rig = try StationRig(profile: "custom-vkp80iii") {
            $0.http.serverNames = ["kiosk-1.store.lan"]
        }
        do {
            let port = try #require(rig.kiosk.httpPort.wait())
            func status(_ method: String, _ path: String, _ headers: [String: String]) throws -> String {
                try Self.request(port, method, path, headers: headers)
            }
            // Its own names: loopback, the configured name (any case, with the port).
            #expect(try status("GET", "/status", ["Host": "127.0.0.1:\(port)"]).hasSuffix("200 OK"))
            #expect(try status("GET", "/status", ["Host": "localhost"]).hasSuffix("200 OK"))
            #expect(try status("GET", "/metrics", ["Host": "Kiosk-1.Store.LAN:\(port)"]).hasSuffix("200 OK"))
            // A rebound name: refused before anything is read or done, even with a matching Origin.
            #expect(try status("GET", "/status", ["Host": "attacker.example:\(port)"]).contains("421"))
            let rebound = ["Host": "attacker.example:\(port)", "Origin": "http://attacker.example:\(port)"]
            #expect(try status("POST", "/printer/take", rebound).contains("421"))
            #expect(try status("GET", "/", ["Host": "192.0.2.1"]).contains("421"))
            // Another site's page posting to the kiosk's own name: refused by its Origin, as before.
            let crossSite = ["Host": "127.0.0.1:\(port)", "Origin": "http://attacker.example"]
            #expect(try status("POST", "/printer/take", crossSite).contains("403"))
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }
}
