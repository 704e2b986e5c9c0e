import AsyncHTTPClient
import Foundation
import KioskCore
import NIOCore
import NIOHTTP1

/// A manager at the console of a test server, as a browser without script: logs in (the session cookie),
/// reads pages, posts their forms with the page's CSRF token. Redirects are not followed (a test looks at them).
struct ConsoleRig {
    let client: HTTPClient
    let server: ServerRig
    let session: String

    /// Runs `body` with a client that does not follow redirects, then shuts it down and stops `server`, whatever
    /// happened.
    static func run(_ server: ServerRig, _ body: (HTTPClient) async throws -> Void) async throws {
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(redirectConfiguration: .disallow)
        )
        do {
            try await body(client)
        } catch {
            try? await client.shutdown()
            await server.stop()
            throw error
        }
        try? await client.shutdown()
        await server.stop()
    }

    /// Logs `username` in with the test password (``ServerRig/registerStore(_:manager:)``'s).
    static func login(_ client: HTTPClient, _ server: ServerRig, as username: String) async throws -> ConsoleRig {
        let login = try await post(
            client,
            server.url + "/console/login",
            form: "username=\(username)&password=correct+horse+battery"
        )
        guard let cookie = login.headers["Set-Cookie"].first(where: { $0.hasPrefix("clup_console=") }) else {
            throw ServerRig.Failure(description: "console login of \(username): \(login.status)")
        }
        return ConsoleRig(client: client, server: server, session: String(cookie.prefix { $0 != ";" }))
    }

    /// Two stores, each with its manager logged in: `anna`'s (of `capacity`), whose page the test acts on, and
    /// `bruno`'s, another store.
    struct TwoManagers {
        var store: StoreID
        var anna: ConsoleRig
        var bruno: ConsoleRig
        var brunosPage: String
        var page: String { "/console/stores/\(store.uuidString)" }

        init(_ client: HTTPClient, _ server: ServerRig, capacity: Int) async throws {
            store = try await server.registerStore(["capacity": capacity], manager: "anna")
            let brunos = try await server.registerStore(["name": "Other Market"], manager: "bruno")
            brunosPage = "/console/stores/\(brunos.uuidString)"
            anna = try await ConsoleRig.login(client, server, as: "anna")
            bruno = try await ConsoleRig.login(client, server, as: "bruno")
        }

        /// Whether `form` posted to `action` of anna's page is refused without the page's CSRF token (back with a
        /// problem) and from another store's manager (403).
        func refusesForgedAndForeign(_ action: String, form: String) async throws -> Bool {
            let forged = try await ConsoleRig.post(
                anna.client,
                anna.server.url + page + action,
                form: "csrf=x&" + form,
                headers: ["Cookie": anna.session]
            )
            let foreign = try await bruno.submit(form, to: page + action, from: brunosPage)
            return forged.status == 303 && forged.headers["Location"].first?.contains("problem") == true
                && foreign.status == 403
        }
    }

    func get(_ path: String) async throws -> (status: Int, headers: HTTPHeaders, body: String) {
        var request = HTTPClientRequest(url: server.url + path)
        request.headers.add(name: "Cookie", value: session)
        return try await Self.exchange(client, request)
    }

    /// Posts `form` (url-encoded, without the token) to `path` with the CSRF token of the page at `page`.
    func submit(
        _ form: String,
        to path: String,
        from page: String
    ) async throws
        -> (status: Int, headers: HTTPHeaders, body: String)
    {
        let shown = try await get(page)
        guard let csrf = shown.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1 else {
            throw ServerRig.Failure(description: "no form at \(page): \(shown.status) \(shown.body.prefix(300))")
        }
        return try await Self.post(
            client,
            server.url + path,
            form: "csrf=\(csrf)&" + form,
            headers: ["Cookie": session]
        )
    }

    /// Approves (or refuses) the kiosk waiting with pairing code `code` for `store` in `role`.
    func pair(
        _ code: String,
        store: StoreID,
        role: String = "both",
        deny: Bool = false
    ) async throws
        -> (status: Int, body: String)
    {
        let answer = try await submit(
            "code=\(code)&store=\(store.uuidString.lowercased())&role=\(role)&decision=" + (deny ? "deny" : "approve"),
            to: "/console/pair",
            from: "/console/pair?code=\(code)"
        )
        return (answer.status, answer.body)
    }

    static func post(
        _ client: HTTPClient,
        _ url: String,
        form: String,
        headers: [String: String] = [:]
    ) async throws -> (status: Int, headers: HTTPHeaders, body: String) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(string: form))
        return try await exchange(client, request)
    }

    static func exchange(
        _ client: HTTPClient,
        _ request: HTTPClientRequest
    ) async throws -> (status: Int, headers: HTTPHeaders, body: String) {
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 4 << 20)
        return (Int(response.status.code), response.headers, String(buffer: body))
    }
}
