import HTTPTypes
import Hummingbird

/// The control endpoints (`POST /door/exit`, `/printer/take`) act only for the kiosk's own pages and local
/// clients (curl, a GPIO button's script): a request a browser sends for another site's page — a form post
/// or `fetch` from any tab open on the kiosk's screen — is refused. Browsers name the page's origin in
/// `Origin` and `Sec-Fetch-Site` on such requests; clients that are not browsers send neither.
struct SameOriginOnly<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard request.method == .get || request.method == .head || Self.isSameOrigin(request) else {
            return StationHTTP.json(
                .forbidden,
                error: "cross-site request refused — use the kiosk's own page at this address, or a local client"
            )
        }
        return try await next(request, context)
    }

    static func isSameOrigin(_ request: Request) -> Bool {
        if let site = request.headers[fetchSite], site != "same-origin", site != "none" { return false }
        guard let origin = request.headers[.origin] else { return true }
        guard let host = request.head.authority else { return false }
        return origin == "http://" + host || origin == "https://" + host
    }
}

private let fetchSite = HTTPField.Name("Sec-Fetch-Site")!
