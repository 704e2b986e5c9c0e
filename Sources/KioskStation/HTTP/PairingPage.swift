import Foundation
import Hummingbird
import KioskCore
import Logging
import ServiceLifecycle
import Synchronization

/// While a box pairs (``KioskPairer``) its local pages say so, on the port the kiosk's pages will use:
///
///     GET /  and  GET /display   the code large, where to type it and until when (reloads every 5 s)
///     GET /status                503 {"state": "pairing", "code", "verificationURI", "validUntil", "device"}
///     GET /healthz               200
///
/// Nothing else: the box has no store yet. The code is not a secret (it is printed for anyone to read); the
/// device code that collects the credential never leaves kioskd.
public enum PairingPage {
    /// What the pages show: the current code, or nil between codes.
    public final class Shown: Sendable {
        private let ticket = Mutex<PairingTicket?>(nil)

        public init() {}

        public func set(_ shown: PairingTicket?) { ticket.withLock { $0 = shown } }
        public var current: PairingTicket? { ticket.withLock { $0 } }
    }

    public static func application(config: KioskConfig, shown: Shown, logger: Logger) -> some Service {
        let router = Router()
        router.get("healthz") { _, _ in "ok" }
        router.get("status") { _, _ -> Response in
            var object: [String: any Sendable] = ["state": "pairing", "device": config.device.id]
            if let ticket = shown.current {
                object["code"] = ticket.userCode
                object["verificationURI"] = ticket.verificationURI
                object["validUntil"] = ticket.validUntil
            }
            return StationHTTP.json(.serviceUnavailable, object)
        }
        for path in ["", "display"] {
            router.get(RouterPath(path)) { _, _ in StationHTTP.html(page(shown.current, device: config.device.id)) }
        }
        return Application(
            router: router,
            configuration: .init(address: .hostname(config.http.host, port: config.http.port), serverName: "kioskd"),
            logger: logger
        )
    }

    static func page(_ ticket: PairingTicket?, device: String) -> String {
        let body: String
        if let ticket {
            body = """
                <h1>Pair this kiosk</h1>
                <p id="code" class="code">\(escaped(ticket.userCode))</p>
                \(ticket.lines.map { "<p>\(escaped($0))</p>" }.joined(separator: "\n"))
                """
        } else {
            body = """
                <h1>Pair this kiosk</h1>
                <p id="code">Asking clup-server for a pairing code for \(escaped(device))…</p>
                """
        }
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="refresh" content="5">
            <title>Pair this kiosk</title>
            <style>
            body{font-family:sans-serif;text-align:center;margin:2rem;background:#fff;color:#111}
            .code{font-size:18vmin;font-weight:700;letter-spacing:.05em;margin:.2em 0}p{font-size:1.4rem}
            </style>
            </head>
            <body>
            <main>
            \(body)
            </main>
            </body>
            </html>
            """
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
