import HTTPTypes
import Hummingbird

/// The kiosk's buttons (`POST /door/exit`, `/printer/take`) act for the box's own clients — its screen, a GPIO
/// button's script, curl on the box — and, from another device on the shop's network, only for a manager who
/// logged in on the manager page (``ManagerSessions``). GETs (the pages, status, metrics) stay open to the names
/// ``SameOriginOnly`` allows: the window display shows nothing a passer-by cannot read off the screen.
struct ManagersOnly: RouterMiddleware {
    typealias Context = PageContext
    let sessions: ManagerSessions

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if request.method == .get || request.method == .head || context.isLocal
            || ["/login", "/logout"].contains(request.uri.path)
            || sessions.isOpen(request.managerToken)
        {
            return try await next(request, context)
        }
        guard sessions.password != nil else {
            return StationHTTP.json(
                .forbidden,
                error: "the kiosk's buttons work only on the box itself until a manager password is set: run "
                    + "`kioskd manager-password` on the box, put its line under [http] and restart kioskd"
            )
        }
        return StationHTTP.json(
            .unauthorized,
            error: "log in on the manager page first (or again: a session lasts 12 hours)"
        )
    }
}

extension Request {
    /// The manager's session token, from the cookie ``ManagerSessions/cookie`` that `POST /login` set.
    var managerToken: String? { cookies[ManagerSessions.cookie]?.value }
}
