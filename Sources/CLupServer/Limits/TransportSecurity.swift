import HTTPTypes
import Hummingbird

/// Responses to a client whose side of the connection is HTTPS — this server's own TLS, or a trusted proxy
/// (`--trusted-proxy`) that says `X-Forwarded-Proto: https` — carry `Strict-Transport-Security`, and their
/// cookies the `Secure` flag, so that a browser never sends the console's session over plain HTTP. The
/// proxy's scheme is believed exactly as its `X-Forwarded-For` is: only from a trusted proxy.
struct TransportSecurity: RouterMiddleware {
    typealias Context = ServerContext

    let clients: ClientAddress
    let tls: Bool

    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let strictTransportSecurity = HTTPField.Name("Strict-Transport-Security")!
    /// A year, as browsers' preload lists expect; subdomains are the operator's to include.
    static let hsts = "max-age=31536000"

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response = try await next(request, context)
        guard isHTTPS(request, context) else { return response }
        response.headers[Self.strictTransportSecurity] = Self.hsts
        let cookies = response.headers[values: .setCookie]
        if cookies.contains(where: { !Self.isSecure($0) }) {
            response.headers[values: .setCookie] = cookies.map { Self.isSecure($0) ? $0 : $0 + "; Secure" }
        }
        return response
    }

    /// Whether the client reached this server over HTTPS.
    func isHTTPS(_ request: Request, _ context: Context) -> Bool {
        if tls { return true }
        guard let peer = context.remoteAddress?.ipAddress, clients.isTrustedProxy(peer) else { return false }
        // The last proxy's word: the scheme the client used to reach it.
        let last = request.headers[values: Self.forwardedProto].last?.split(separator: ",").last
        return last?.trimmingCharacters(in: .whitespaces).lowercased() == "https"
    }

    static func isSecure(_ cookie: String) -> Bool {
        cookie.split(separator: ";").dropFirst().contains {
            $0.trimmingCharacters(in: .whitespaces).lowercased() == "secure"
        }
    }
}
