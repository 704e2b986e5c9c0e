import Crypto
import Foundation
import Hummingbird
import KioskCore

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
    let lifetime: Duration
    /// Cookies only over HTTPS (the server has TLS, or a proxy in front of it does).
    let secure: Bool

    /// Who the request's cookie stands for, if anyone (an ended session is no one).
    func who(_ request: Request) async -> Who? {
        guard let value = request.cookies[Self.sessionCookie]?.value, !value.isEmpty else { return nil }
        if value.hasPrefix("a.") { return adminSession(value) ? .admin : nil }
        guard let session = try? await auth.manager(session: value) else { return nil }
        return .manager(username: session.username, store: session.store)
    }

    /// A signed admin session that expires: `a.<expiry ms>.<MAC token bound to the expiry>`.
    func adminSession(at now: Timestamp) -> String {
        let expires = (now + lifetime).milliseconds
        return "a.\(expires).\(MACToken.mint(key: key, binding: Data("admin:\(expires)".utf8)))"
    }

    private func adminSession(_ value: String) -> Bool {
        let parts = value.split(separator: ".", maxSplits: 2)
        guard parts.count == 3, let expires = Int64(parts[1]),
            expires > auth.database.clock.now().milliseconds
        else { return false }
        return MACToken.isValid(String(parts[2]), key: key, binding: Data("admin:\(expires)".utf8))
    }

    /// The cookie that holds a session (`value`), or clears it (nil).
    func cookie(_ value: String?) -> Cookie {
        Cookie(
            name: Self.sessionCookie,
            value: value ?? "",
            maxAge: value == nil ? 0 : Int(lifetime.components.seconds),
            path: "/console",
            secure: secure,
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
            secure: secure,
            httpOnly: true,
            sameSite: .strict
        )
    }

    /// A fresh CSRF token for the forms of a page shown to the holder of this request's session cookie.
    func csrf(_ request: Request) -> String {
        MACToken.mint(key: key, binding: binding(request))
    }

    /// Whether a posted form may act: its CSRF token is one this server made for this session, and the
    /// browser's `Origin`, when it sent one, is this server.
    func formIsGenuine(_ request: Request, csrf: String?) -> Bool {
        if let origin = request.headers[.origin], let host = request.head.authority {
            guard let url = URL(string: origin), let originHost = url.host else { return false }
            let port = url.port.map { ":\($0)" } ?? ""
            guard (originHost + port).lowercased() == host.lowercased() else { return false }
        }
        guard let csrf else { return false }
        return MACToken.isValid(csrf, key: key, binding: binding(request))
    }

    private func binding(_ request: Request) -> Data {
        Data(("csrf:" + (request.cookies[Self.sessionCookie]?.value ?? "")).utf8)
    }
}
