import HTTPTypes
import Hummingbird

/// The kiosk's local pages answer only to the names the box is known by, and its control endpoints
/// (`POST /door/exit`, `/printer/take`) act only for the kiosk's own pages and local clients (curl, a GPIO
/// button's script).
///
/// - Every request, GETs too, must name one of ``KioskConfig/HTTP/allowedHosts`` in `Host` (loopback, the
///   listening address, `[http] server_names`): a page of another site whose DNS name was rebound to this
///   box's address sends its own name there, and is refused (421) before it reads a status or a metric.
/// - A request a browser sends for another site's page — a form post or `fetch` from any tab open on the kiosk's
///   screen — is refused: browsers name the page's origin in `Origin` and `Sec-Fetch-Site`, and that origin
///   must be one of the same names. Clients that are not browsers send neither.
struct SameOriginOnly<Context: RequestContext>: RouterMiddleware {
    let hosts: Set<String>

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if let authority = request.head.authority, !hosts.contains(Self.host(of: authority)) {
            return StationHTTP.json(
                .misdirectedRequest,
                error: "this kiosk does not answer to '\(authority.prefix(100))' — use its own address, or add the "
                    + "name to [http] server_names"
            )
        }
        guard request.method == .get || request.method == .head || isSameOrigin(request) else {
            return StationHTTP.json(
                .forbidden,
                error: "cross-site request refused — use the kiosk's own page at this address, or a local client"
            )
        }
        return try await next(request, context)
    }

    func isSameOrigin(_ request: Request) -> Bool {
        if let site = request.headers[fetchSite], site != "same-origin", site != "none" { return false }
        guard let origin = request.headers[.origin] else { return true }
        guard let host = request.head.authority else { return false }
        guard origin == "http://" + host || origin == "https://" + host else { return false }
        return hosts.contains(Self.host(of: host))
    }

    /// The name in an authority (`name:port`, `[::1]:8080`), lower case and without the port.
    static func host(of authority: String) -> String {
        let lower = authority.lowercased()
        if lower.hasPrefix("["), let end = lower.firstIndex(of: "]") { return String(lower[...end]) }
        if lower.filter({ $0 == ":" }).count > 1 { return lower }  // a bare IPv6 address
        return String(lower.split(separator: ":", maxSplits: 1).first ?? "")
    }
}

private let fetchSite = HTTPField.Name("Sec-Fetch-Site")!
