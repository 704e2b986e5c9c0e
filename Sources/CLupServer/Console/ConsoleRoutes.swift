import Foundation
import Hummingbird
import KioskCore

/// The console's entry: `GET /console/login` and `POST /console/login` (a manager's name and password, or
/// the admin token; the API's login and its throttling), `POST /console/logout`, and `GET /console`, which
/// sends a manager to their store's page and shows the system manager the stores. Plain forms: the console
/// works without its script, which only keeps the line live.
struct ConsoleRoutes {
    let sessions: ConsoleSessions
    let accounts: Accounts
    let pages: PageResponse
    let clients: ClientAddress

    struct LoginForm {
        var username = ""
        var password = ""
        var token = ""
        var next = ""
    }

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("console/login") { request, _ -> Response in
            let strings = PageStrings(request)
            let query = request.uri.queryParameters
            let notice = query["ended"] != nil ? strings["console.ended"] : nil
            return login(strings, next: query["next"].map(String.init) ?? "", notice: notice, status: .ok)
        }
        router.post("console/login") { request, context -> Response in
            let strings = PageStrings(request)
            let form = await ConsoleForm.read(request)
            let next = Self.safeNext(form["next"])
            // A login form posted from another site's page would log the browser in as the sender chose.
            guard sessions.isSameOrigin(request) else {
                return login(strings, next: next, notice: strings["console.foreign"], status: .forbidden)
            }
            let now = accounts.clock.now()
            if let token = form["token"], !token.isEmpty {
                // Guessed like a password: counted against the address before it is checked.
                do throws(Refusal) {
                    try await sessions.auth.throttled(request, from: context.remoteAddress) {
                        () async throws(Refusal) in
                        guard sessions.auth.isAdmin(token) else { throw .unauthorized }
                    }
                } catch {
                    return failed(error, strings, next: next)
                }
                var response = Self.redirect(next.isEmpty ? "/console" : next)
                response.setCookie(sessions.cookie(sessions.adminSession(at: now)))
                return response
            }
            let attempt = Accounts.Login(
                username: form["username"] ?? "",
                password: form["password"] ?? "",
                device: request.cookies[ConsoleSessions.deviceCookie]?.value
            )
            do {
                let session = try await accounts.login(
                    attempt,
                    address: clients.of(request, peer: context.remoteAddress)
                )
                var response = Self.redirect(next.isEmpty ? "/console/stores/\(Self.id(session.store))" : next)
                response.setCookie(sessions.cookie(session.token))
                response.setCookie(sessions.deviceCookie(session.device))
                return response
            } catch {
                return failed(Refusal(answering: error, to: request, logger: context.logger), strings, next: next)
            }
        }
        router.post("console/logout") { request, _ -> Response in
            let form = await ConsoleForm.read(request)
            guard sessions.isSameOrigin(request) else {
                let strings = PageStrings(request)
                return login(strings, next: "", notice: strings["console.foreign"], status: .forbidden)
            }
            if let value = request.cookies[ConsoleSessions.sessionCookie]?.value,
                sessions.formIsGenuine(request, csrf: form["csrf"])
            {
                await sessions.end(value)
            }
            var response = Self.redirect("/console/login")
            response.setCookie(sessions.cookie(nil))
            return response
        }
        router.get("console") { request, _ -> Response in
            switch await sessions.who(request) {
            case nil: return Self.toLogin(request, from: "/console")
            case .manager(_, let store): return Self.redirect("/console/stores/\(Self.id(store))")
            case .admin: return Self.redirect("/console/stores")
            }
        }
    }

    private func login(
        _ strings: PageStrings,
        next: String,
        notice: String?,
        status: HTTPResponse.Status
    )
        -> Response
    {
        var values: [String: Any] = [
            "w": ConsoleView.words(strings), "pageTitle": strings["console.title"], "next": Self.safeNext(next),
            "script": ConsoleScript.text,
        ]
        values["notice"] = notice
        return pages.page("consoleLogin", values, strings, status: status)
    }

    /// The login page again after a refused login: wrong credentials, or wait (429, or 503 while the server is
    /// busy checking passwords; with `Retry-After`).
    private func failed(_ error: Refusal, _ strings: PageStrings, next: String) -> Response {
        let notice =
            switch error.status {
            case .tooManyRequests: strings.format("console.slow", error.retryAfter ?? 60)
            case .serviceUnavailable: strings["console.busy"]
            default: strings["console.wrong"]
            }
        var response = login(strings, next: next, notice: notice, status: error.status)
        if let wait = error.retryAfter { response.headers[.retryAfter] = String(wait) }
        return response
    }

    /// Only a console path is followed after login (never another site).
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/console/"), !next.hasPrefix("//"), !next.contains("\\"), next.utf8.count <= 300
        else { return "" }
        return next
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// To the login page, coming back to `path` after; says the session ended when the browser had one.
    /// Someone who is not the system manager at one of the system manager's pages (`path`): without a session,
    /// to the login page and back; with a store manager's, a page saying it is not theirs.
    static func notAdmin(
        _ request: Request,
        _ who: ConsoleSessions.Who?,
        at path: String,
        pages: PageResponse
    ) -> Response {
        guard who != nil else { return toLogin(request, from: path) }
        let strings = PageStrings(request)
        return pages.message(strings["problem"], strings["console.forbidden"], strings, status: .forbidden)
    }

    static func toLogin(_ request: Request, from path: String) -> Response {
        let ended = request.cookies[ConsoleSessions.sessionCookie].map { !$0.value.isEmpty } ?? false
        var query = "next=" + (path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        if ended { query += "&ended=1" }
        return redirect("/console/login?" + query)
    }

    static func id(_ store: StoreID) -> String { store.uuidString.lowercased() }
}

/// A posted console form (`application/x-www-form-urlencoded`, at most 16 KB; anything else reads as empty).
struct ConsoleForm {
    let fields: [String: String]

    subscript(_ name: String) -> String? { fields[name] }

    static func read(_ request: Request) async -> ConsoleForm {
        guard let buffer = try? await request.body.collect(upTo: 16 << 10) else { return ConsoleForm(fields: [:]) }
        var fields: [String: String] = [:]
        for pair in String(buffer: buffer).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            // A field that is not valid percent-encoded UTF-8 is dropped, as if missing.
            guard let name = decode(parts[0]), fields[name] == nil,
                let value = parts.count == 2 ? decode(parts[1]) : ""
            else { continue }
            fields[name] = value
        }
        return ConsoleForm(fields: fields)
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
