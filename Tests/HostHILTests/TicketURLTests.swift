import DeviceEmulators
import Foundation
import KioskCore
import Testing

@testable import KioskStation
@testable import Rigs

/// What a phone camera sees on a printed ticket: zbarimg (an independent QR decoder) reads the QR from the
/// emulator's picture of the ticket, and Python's URL parser (an independent URL parser) must find one URL
/// whose path is `/T/` followed by the whole signed code, every character of it allowed in a path as is.
/// The door then admits the same text.
@Suite(.serialized) struct TicketURLTests {
    static let check = """
        import re, sys
        from urllib.parse import urlsplit, unquote
        url, status_url = sys.argv[1], sys.argv[2]
        parts = urlsplit(url)
        base = urlsplit(status_url)
        assert parts.scheme.lower() == base.scheme.lower(), parts
        assert parts.netloc.lower() == base.netloc.lower(), parts
        assert not parts.query and not parts.fragment, parts
        code = parts.path[len(base.path):]
        assert parts.path.startswith(base.path) and code, parts.path
        assert "/" not in code, "the code is more than one path segment: " + code
        # RFC 3986 pchar, no percent-escapes: a browser opens exactly this path.
        assert re.fullmatch(r"[A-Za-z0-9\\-._~!$&'()*+,;=:@]+", code), code
        assert unquote(code) == code
        assert url == status_url + code
        print(len(code))
        """

    @Test(.enabled(if: HIL.needs("zbarimg"), "zbarimg not installed (apt-get install zbar-tools; make test does it)"))
    func thePrintedQRIsOneURLWhosePathIsTheWholeCode() async throws {
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        let rig = try StationRig(profile: "custom-vkp80iii") {
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)"
        }
        do {
            var lengths: [Int] = []
            for n in 1...5 {
                let tickets = try await rig.requireTickets(n)
                let png = try #require(tickets[n - 1].pngPath)
                let url = try #require(try HIL.decodeQR(png: png).first)
                let result = try HIL.run("python3", ["-c", Self.check, url, rig.kiosk.config.store.statusURL])
                #expect(result.status == 0, "not one URL with the code as its path: \(url)\n\(result.error)")
                lengths.append(Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0)
                await rig.customerTakes()
                if n == 1 {
                    #expect(try await rig.scan(url, on: scanner) == "admit A001")
                }
            }
            #expect(lengths.allSatisfy { $0 == 177 }, "\(lengths)")
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }
}
