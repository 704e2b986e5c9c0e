import Foundation
import HTTPTypes
import Hummingbird

/// The manager page's login, for a tablet on the shop's network (``ManagerSessions``, ``ManagersOnly``):
///
///     GET  /session   {"local": the client is the box itself, "manager": logged in, "passwordSet": one is set}
///     POST /login     {"password": "…"} → 200 and a session cookie; 401 wrong; 429 too many (Retry-After);
///                     403 no password is set on this kiosk; 400 a body that is not that object
///     POST /logout    ends the session
extension StationHTTP {
    static let maxLoginBody = 1024
    /// The longest password a login takes, and `kioskd manager-password` makes.
    public static let maxPasswordBytes = 256

    static func addManagerLogin(to router: Router<PageContext>, sessions: ManagerSessions) {
        router.get("session") { request, context -> Response in
            json(
                .ok,
                [
                    "local": context.isLocal,
                    "manager": sessions.isOpen(request.managerToken),
                    "passwordSet": sessions.password != nil,
                ]
            )
        }
        router.post("login") { request, context -> Response in
            struct Body: Decodable { var password: String }
            guard let body = await decoded(Body.self, request, limit: maxLoginBody),
                body.password.utf8.count <= maxPasswordBytes
            else {
                return json(
                    .badRequest,
                    error: "send {\"password\": \"…\"} as JSON (at most \(maxPasswordBytes) bytes)"
                )
            }
            switch await sessions.login(body.password) {
            case .opened(let token):
                var response = json(.ok, ["ok": true])
                response.setCookie(
                    Cookie(
                        name: ManagerSessions.cookie,
                        value: token,
                        maxAge: Int(ManagerSessions.lifetime.components.seconds),
                        path: "/",
                        httpOnly: true,
                        sameSite: .strict
                    )
                )
                return response
            case .wrong:
                return json(.unauthorized, error: "wrong password")
            case .tooMany(let seconds):
                var response = json(.tooManyRequests, error: "too many wrong passwords: try again in \(seconds) s")
                response.headers[.retryAfter] = "\(seconds)"
                return response
            case .noPassword:
                return json(
                    .forbidden,
                    error: "no manager password is set on this kiosk: run `kioskd manager-password` on the box, "
                        + "put its line under [http] and restart kioskd"
                )
            }
        }
        router.post("logout") { request, _ -> Response in
            sessions.close(request.managerToken)
            var response = json(.ok, ["ok": true])
            response.setCookie(Cookie(name: ManagerSessions.cookie, value: "", maxAge: 0, path: "/", sameSite: .strict))
            return response
        }
    }
}
