import Crypto
import Foundation
import Hummingbird
import KioskCore
import Logging

/// Who is using the console, from its cookie: a store manager (the session token `POST /v1/login` gives,
/// kept in an HttpOnly, SameSite=Strict cookie, so the page's script never sees it) or the system manager
/// (who logged in with the admin token: the cookie holds a signed admin session that expires, never the
/// token itself).
///
/// Every form the console posts carries a CSRF token (a MAC of the session cookie under a server key) and,
/// where the browser sends one, an `Origin` that must be this server: a page elsewhere cannot act for a
/// logged-in manager. A session that ended sends the browser to the login page with a note, never to an
/// error.
struct ConsoleSessions: Sendable {
    static let logger = Logger(label: "clup-server.console")

    /// What a console page shows of `error`: its refusal, or (logged) that the server failed.
    static func refusal(_ error: any Error, _ request: Request) -> Refusal {
        Refusal(answering: error, to: request, logger: logger)
    }
    enum Who: Sendable, Equatable {
        case admin
        case manager(username: String, store: StoreID)

        func mayManage(_ store: StoreID) -> Bool {
            switch self {
            case .admin: return true
            case .manager(_, let own): return own == store
            }
        }
    }

    static let sessionCookie = "clup_console"
    /// The known-device token of the login throttle (``KnownDevices``), kept a year.
    static let deviceCookie = "clup_device"

    let key: SymmetricKey
    let auth: Authenticator
    let accounts: Accounts
    let lifetime: Duration
    /// Whether a request came over HTTPS (this server's TLS, or a trusted proxy's `X-Forwarded-Proto`): cookies
    /// are `Secure` then (set here with the server's own TLS; the middleware adds it behind a proxy).
    let transport: TransportSecurity

    /// Who the request's cookie stands for, if anyone (an ended session is no one).
    func who(_ request: Request) async -> Who? {
        guard let value = request.cookies[Self.sessionCookie]?.value, !value.isEmpty else { return nil }
        if value.hasPrefix("a.") {
            // Signed, and not ended by a logout (a database that cannot say is no one: closed, not open).
            guard adminSession(value) != nil, (try? await accounts.adminSessionEnded(value)) == false else {
                return nil
            }
            return .admin
        }
        guard let session = try? await auth.manager(session: value) else { return nil }
        return .manager(username: session.username, store: session.store)
    }

    /// A signed admin session that expires: `a.<expiry ms>.<MAC token bound to the expiry>`.
    func adminSession(at now: Timestamp) -> String {
        let expires = (now + lifetime).milliseconds
        return "a.\(expires).\(MACToken.mint(key: key, binding: Data("admin:\(expires)".utf8)))"
    }

    /// When a signed admin session that has not expired expires; nil for anything else.
    func adminSession(_ value: String) -> Timestamp? {
        let parts = value.split(separator: ".", maxSplits: 2)
        guard parts.count == 3, let expires = Int64(parts[1]),
            expires > accounts.clock.now().milliseconds,
            MACToken.isValid(String(parts[2]), key: key, binding: Data("admin:\(expires)".utf8))
        else { return nil }
        return Timestamp(milliseconds: expires)
    }

    /// Ends the session of `value` (a manager's, or the system manager's until it would have expired).
    func end(_ value: String) async {
        do {
            if let expires = adminSession(value) {
                try await accounts.endAdminSession(value, expires: expires)
            } else {
                try await accounts.logout(value)
            }
        } catch {
            // The cookie is cleared all the same; the session itself stays valid until it expires.
            Self.logger.error(
                "cannot end a console session in the database: it stays valid until it expires; check the database",
                metadata: ["error": "\(error)"]
            )
        }
    }

    /// The cookie that holds a session (`value`), or clears it (nil).
    func cookie(_ value: String?) -> Cookie {
        Cookie(
            name: Self.sessionCookie,
            value: value ?? "",
            maxAge: value == nil ? 0 : Int(lifetime.components.seconds),
            path: "/console",
            secure: transport.tls,
            httpOnly: true,
            sameSite: .strict
        )
    }

    func deviceCookie(_ token: String) -> Cookie {
        Cookie(
            name: Self.deviceCookie,
            value: token,
            maxAge: 365 * 86_400,
            path: "/console",
            secure: transport.tls,
            httpOnly: true,
            sameSite: .strict
        )
    }

    /// The query that carries a notice or a problem to the page an action redirects to, with a MAC of it: the
    /// page shows only texts this server chose (a link with any other `problem=`, `revoked=` or `registered=`
    /// text shows nothing — no phishing line in a red alert or a green notice).
    func signedQuery(_ name: String, _ value: String) -> String {
        let mac = MACToken.mint(key: key, binding: Data("\(name):\(value)".utf8))
        let text = value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return "\(name)=\(text)&\(name)-mac=\(mac)"
    }

    /// The value of `name` a redirect carried, if this server chose it (``signedQuery(_:_:)``).
    func signed(_ name: String, in request: Request) -> String? {
        let query = request.uri.queryParameters
        guard let value = query[name[...]].map(String.init), value.utf8.count <= 2_000,
            let mac = query["\(name)-mac"[...]].map(String.init),
            MACToken.isValid(mac, key: key, binding: Data("\(name):\(value)".utf8))
        else { return nil }
        return value
    }

    func problemQuery(_ problem: String) -> String { signedQuery("problem", problem) }

    /// The problem a redirect carried, if this server chose it.
    func problem(_ request: Request) -> String? { signed("problem", in: request) }

    /// Whether a form came from this server's own page: a browser's `Origin`, when it sends one, is this server.
    func isSameOrigin(_ request: Request) -> Bool {
        guard let origin = request.headers[.origin] else { return true }
        guard let host = request.head.authority, let url = URL(string: origin), let originHost = url.host else {
            return false
        }
        let port = url.port.map { ":\($0)" } ?? ""
        return (originHost + port).lowercased() == host.lowercased()
    }

    /// A fresh CSRF token for the forms of a page shown to the holder of this request's session cookie.
    func csrf(_ request: Request) -> String {
        MACToken.mint(key: key, binding: binding(request))
    }

    /// Whether a posted form may act: its CSRF token is one this server made for this session, and the
    /// browser's `Origin`, when it sent one, is this server.
    func formIsGenuine(_ request: Request, csrf: String?) -> Bool {
        guard isSameOrigin(request), let csrf else { return false }
        return MACToken.isValid(csrf, key: key, binding: binding(request))
    }

    private func binding(_ request: Request) -> Data {
        Data(("csrf:" + (request.cookies[Self.sessionCookie]?.value ?? "")).utf8)
    }
}
