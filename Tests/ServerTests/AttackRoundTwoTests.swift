import AsyncHTTPClient
import Foundation
import Glibc
import KioskCore
import NIOCore
import NIOHTTP1
import ServiceSupport
import Testing

@testable import CLupServer
@testable import Rigs

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The second round of attacks on the public API (issue 32), each one as an attacker on the internet would
/// make it, and what the server does about it.
@Suite(.serialized) struct AttackRoundTwoTests {
    /// A kiosk of one store issues a paper ticket under the id of another store's ticket (seen in its QR): the
    /// append is refused, and the real ticket's status and its holder's cancel are untouched.
    @Test func aKioskCannotIssueUnderAnotherStoresTicketID() async throws {
        let server = try await ServerRig()
        try await Self.run(server) { _ in
            let victimStore = try await server.registerStore(["name": "Victim Market"], manager: "victim")
            let rogueStore = try await server.registerStore(["name": "Rogue Market"], manager: "rogue")
            let credential = try await server.enroll("rogue", store: rogueStore)
            let taken = try await server.call("POST", "/v1/stores/\(victimStore.uuidString)/tickets", token: nil)
            let victim = try #require((taken.body["ticket"] as? [String: Any])?["id"] as? String)
            let holder = try #require(taken.body["holderToken"] as? String)
            let id = try #require(UUID(uuidString: victim))

            let now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
            let forged = Ticket(
                id: id,
                store: rogueStore,
                kind: .paper,
                code: TicketCode(prefix: "Z", number: 1),
                issuedAt: now,
                issuer: "rogue"
            )
            let event = StoreEvent.new(.ticketIssued(forged), store: rogueStore, device: "rogue", at: now)
            let answer = try await server.call(
                "POST",
                "/v1/stores/\(rogueStore.uuidString)/events",
                token: credential,
                raw: try JSONEncoder().encode(["events": [event]])
            )
            #expect(answer.status == 409, "\(answer.body)")
            #expect(answer.body["field"] as? String == "events[0].body.ticket.id")
            #expect(server.queue(rogueStore)?.entries.isEmpty == true)

            let status = try await server.call("GET", "/v1/tickets/\(victim)", token: nil)
            let ticket = status.body["ticket"] as? [String: Any]
            #expect(ticket?["code"] as? String == "V001" && ticket?["kind"] as? String == "app", "\(status.body)")
            let cancelled = try await server.call(
                "DELETE",
                "/v1/tickets/\(victim)",
                token: nil,
                headers: ["Clup-Holder": holder]
            )
            #expect(cancelled.status == 200 && cancelled.body["stage"] as? String == "cancelled")
            #expect(server.queue(victimStore)?.waiting.isEmpty == true)
        }
    }

    /// A kiosk credential does what a kiosk does, no more: the capacity is the manager's, and a day's start sent
    /// before the store's hours begin that day's line (which would end today's line: every ticket 404) is
    /// refused; an event further ahead than the clock skew sync needs (120 s) is refused too.
    @Test func aKioskCannotLiftTheCapacityNorStartTomorrowNow() async throws {
        let server = try await ServerRig()
        try await Self.run(server) { _ in
            let store = try await server.registerStore(["capacity": 5], manager: "owner")
            let credential = try await server.enroll("k1", store: store)
            let taken = try await server.call("POST", "/v1/stores/\(store.uuidString)/tickets", token: nil)
            let victim = try #require((taken.body["ticket"] as? [String: Any])?["id"] as? String)
            let now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
            func push(_ event: StoreEvent) async throws -> (status: Int, field: String?) {
                let answer = try await server.call(
                    "POST",
                    "/v1/stores/\(store.uuidString)/events",
                    token: credential,
                    raw: try JSONEncoder().encode(["events": [event]])
                )
                return (answer.status, answer.body["field"] as? String)
            }
            let lift = try await push(.new(.capacityChanged(100_000), store: store, device: "k1", at: now))
            #expect(lift.status == 403 && lift.field == "events[0].body", "\(lift)")
            #expect(server.queue(store)?.capacity == 5)

            let calendar = try #require(server.app.logs.store(store)?.record.profile.calendar)
            let tomorrow = BusinessDay(number: calendar.businessDay(at: now).number + 1)
            let early = try await push(.dayStarted(tomorrow, store: store, device: "k1", at: now))
            #expect(early.status == 400 && early.field == "events[0].body.day", "\(early)")
            #expect(try await server.call("GET", "/v1/tickets/\(victim)", token: nil).status == 200)
            // Today's start, as every kiosk writes it, is still taken.
            let today = try await push(calendar.dayStarted(calendar.businessDay(at: now), store: store, device: "k1"))
            #expect(today.status == 200, "\(today)")

            let ahead = try await push(.new(.customerExited, store: store, device: "k1", at: now + .seconds(150)))
            #expect(ahead.status == 400 && ahead.field == "events[0].time", "\(ahead)")
            let near = try await push(
                .new(
                    .scanRefused(reason: "not a ticket", ticket: nil, door: "k1"),
                    store: store,
                    device: "k1",
                    at: now + .seconds(60)
                )
            )
            #expect(near.status == 200, "\(near)")
        }
    }

    /// Forty wrong passwords for one manager sent at once reach the password check as often as forty sent one
    /// after another (3 free for the name, then the wait): each attempt is counted before it is hashed.
    @Test func simultaneousWrongPasswordsAreCountedBeforeHashing() async throws {
        let server = try await ServerRig()
        try await Self.run(server) { _ in
            _ = try await server.registerStore(manager: "racer")
            let began = ContinuousClock.now
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for n in 0..<40 {
                    group.addTask {
                        let login = ["username": "racer", "password": "wrong guess \(n)"]
                        return try await server.call("POST", "/v1/login", token: nil, json: login).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            // One after another: 3 free, the 4th starts a wait of 1 s, the next one waits 2 s, then 4 s…
            let seconds = Double((ContinuousClock.now - began).components.seconds) + 1
            let sequential = 4 + Int(log2(seconds))
            let checked = statuses.count { $0 == 401 }
            #expect(checked <= sequential, "\(checked) checked in \(seconds) s: \(statuses.sorted())")
            #expect(statuses.count { $0 == 429 } == 40 - checked, "\(statuses.sorted())")
        }
    }

    /// The admin token is guessed like a password: wrong tokens on `/metrics`, the admin API and the console's
    /// login count against the address, which then waits (429) before any token is checked — the right one too.
    @Test func theAdminTokenCannotBeGuessedWithoutLimit() async throws {
        let server = try await ServerRig()
        try await Self.run(server) { client in
            var statuses: [Int] = []
            for n in 0..<12 { statuses.append(try await server.call("GET", "/metrics", token: "guess-\(n)").status) }
            #expect(statuses.prefix(11).allSatisfy { $0 == 401 } && statuses.last == 429, "\(statuses)")
            #expect(try await server.call("GET", "/metrics").status == 429, "waiting: even the right token")
            let form = try await Self.post(client, server.url + "/console/login", form: "token=guess")
            #expect(form.status == 429 && form.headers["Retry-After"].first != nil)
        }
    }

    /// The console's login and logout forms refuse a post from another site's page; a `problem=` in a link
    /// that the server did not make shows nothing on the store's page.
    @Test func theConsoleActsOnlyOnItsOwnFormsAndWords() async throws {
        let server = try await ServerRig()
        try await Self.run(server) { client in
            let store = try await server.registerStore(manager: "anna")
            let login = "username=anna&password=correct+horse+battery"
            let foreign = try await Self.post(
                client,
                server.url + "/console/login",
                form: login,
                headers: ["Origin": "https://evil.example"]
            )
            #expect(foreign.status == 403 && foreign.headers["Set-Cookie"].isEmpty, "\(foreign.status)")
            let own = try await Self.post(client, server.url + "/console/login", form: login)
            #expect(own.status == 303)
            let cookie = try #require(own.headers["Set-Cookie"].first { $0.hasPrefix("clup_console=") })
            let session = String(cookie.prefix { $0 != ";" })
            let phishing = "Your+account+is+locked%3A+call+555-0100"
            let page = try await Self.get(
                client,
                server.url + "/console/stores/\(store.uuidString)?problem=\(phishing)",
                cookie: session
            )
            #expect(page.status == 200 && !page.body.contains("555-0100"), "\(page.status)")
            let logout = try await Self.post(
                client,
                server.url + "/console/logout",
                form: "csrf=x",
                headers: ["Origin": "https://evil.example", "Cookie": session]
            )
            #expect(logout.status == 403)
        }
    }

    /// Behind a trusted proxy that says the client came over HTTPS, responses carry HSTS and cookies `Secure`;
    /// the same header from anyone else is not believed. `X-Forwarded-For` entries with a port count as their
    /// address, not as the proxy.
    @Test func theProxysSchemeAndPortsAreReadAsTheProxySaysThem() async throws {
        let server = try await ServerRig(limits: PublicLimits(), trustedProxies: [CIDR("127.0.0.1")!])
        let direct = try await ServerRig()
        try await Self.run(direct) { _ in
            try await Self.run(server) { client in
                _ = try await server.registerStore(manager: "anna")
                let login = "username=anna&password=correct+horse+battery"
                let https = ["X-Forwarded-Proto": "https", "X-Forwarded-For": "198.51.100.9"]
                let secure = try await Self.post(client, server.url + "/console/login", form: login, headers: https)
                #expect(secure.status == 303)
                #expect(secure.headers["Strict-Transport-Security"].first?.hasPrefix("max-age=") == true)
                #expect(!secure.headers["Set-Cookie"].isEmpty)
                #expect(
                    secure.headers["Set-Cookie"].allSatisfy { $0.lowercased().contains("; secure") },
                    "\(secure.headers)"
                )
                let plain = try await Self.get(client, server.url + "/healthz", headers: ["X-Forwarded-Proto": "http"])
                #expect(plain.headers["Strict-Transport-Security"].isEmpty)
                let believed = try await Self.get(
                    client,
                    direct.url + "/healthz",
                    headers: ["X-Forwarded-Proto": "https"]
                )
                #expect(believed.headers["Strict-Transport-Security"].isEmpty, "not from a trusted proxy")

                // Two clients whose proxy adds ports: each has its own allowance (2 new holders at once).
                let store = try await server.registerStore(["capacity": 50, "name": "Port Market"], manager: "bruno")
                for address in ["198.51.100.20:4020", "[2001:db8::1]:4021"] {
                    var taken = 0
                    for _ in 0..<5 {
                        let answer = try await server.call(
                            "POST",
                            "/v1/stores/\(store.uuidString)/tickets",
                            token: nil,
                            headers: ["X-Forwarded-For": address]
                        )
                        if answer.status == 201 { taken += 1 }
                    }
                    #expect(taken == PublicLimits().newHoldersPerAddress.burst, "\(address) shared another's allowance")
                }
                #expect(ClientAddress.host(of: "198.51.100.20:4020") == "198.51.100.20")
                #expect(ClientAddress.host(of: "[2001:db8::1]:4021") == "2001:db8::1")
                #expect(ClientAddress.host(of: "2001:db8::1") == "2001:db8::1")
            }
        }
    }

    /// Every cell a spreadsheet could read as a formula is neutralised, also after a `;` that a spreadsheet in
    /// Italian splits on.
    @Test(arguments: [
        ("x;=HYPERLINK(\"http://e\")", "\"x;'=HYPERLINK(\"\"http://e\"\")\""),
        ("=1+1", "'=1+1"),
        ("a|@SUM(A1)", "a|'@SUM(A1)"),
        ("door 1", "door 1"),
        ("told 600 s (420-900)", "told 600 s (420-900)"),
        ("a,-2", "\"a,'-2\""),
    ])
    func csvCellsNeverBecomeFormulas(cell: String, written: String) {
        #expect(EventCSV.field(cell) == written)
    }

    /// The system manager's console session (its cookie, `name=value`), logged in with the admin token.
    static func adminSession(_ client: HTTPClient, _ server: ServerRig) async throws -> String {
        let login = try await post(client, server.url + "/console/login", form: "token=\(ServerRig.adminToken)")
        let cookie = try #require(login.headers["Set-Cookie"].first { $0.hasPrefix("clup_console=a.") })
        return String(cookie.prefix { $0 != ";" })
    }

    /// Logs a console session out with its page's form: the status of the answer.
    static func logOut(_ client: HTTPClient, _ server: ServerRig, session: String) async throws -> Int {
        let page = try await get(client, server.url + "/console/stores", cookie: session)
        let csrf = try #require(page.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1)
        return try await post(
            client,
            server.url + "/console/logout",
            form: "csrf=\(csrf)",
            headers: ["Cookie": session]
        )
        .status
    }

    static func post(
        _ client: HTTPClient,
        _ url: String,
        form: String,
        headers: [String: String] = [:]
    ) async throws -> (status: Int, headers: HTTPHeaders, body: String) {
        try await ConsoleRig.post(client, url, form: form, headers: headers)
    }

    static func get(
        _ client: HTTPClient,
        _ url: String,
        cookie: String? = nil,
        headers: [String: String] = [:]
    ) async throws -> (status: Int, headers: HTTPHeaders, body: String) {
        var request = HTTPClientRequest(url: url)
        if let cookie { request.headers.add(name: "Cookie", value: cookie) }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        return try await ConsoleRig.exchange(client, request)
    }

    /// Passwords are hashed on NIO's blocking pool with a bound on those waiting: a burst beyond it is told to
    /// try again (503), not queued for ever; the ones taken are checked right.
    @Test func passwordHashesWaitInABoundedLine() async throws {
        let checks = PasswordChecks(maxWaiting: 2)
        let hash = try PasswordHash(password: "correct horse battery")
        let outcomes = await withTaskGroup(of: Int.self) { group in
            for n in 0..<12 {
                group.addTask {
                    do {
                        return try await checks.matches(n == 0 ? "correct horse battery" : "wrong \(n)", hash) ? 1 : 0
                    } catch {
                        return (error as? Refusal)?.code == .unavailable ? 503 : -1
                    }
                }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(outcomes.count { $0 == 503 } >= 1 && outcomes.count { $0 == 0 || $0 == 1 } >= 2, "\(outcomes)")
        #expect(!outcomes.contains(-1))
        #expect(try await checks.matches("correct horse battery", hash))
    }

    /// A request's head and body each have their deadline, whatever the pace of its chunks: a login body
    /// dribbled a byte at a time, and a second request's head dribbled on a kept-alive connection, are cut off
    /// (they stayed open past 56 s: the idle timer restarted with every chunk); a body sent at a person's pace
    /// is read whole.
    @Test func slowBodiesAndSlowSecondHeadsAreCutOff() async throws {
        var connections = ServerRig.crowdConnections
        connections.headDeadline = .seconds(2)
        let server = try await ServerRig(connections: connections)
        try await Self.run(server) { _ in
            func connect() throws -> CInt { try LoopbackSocket.connect(port: server.port) }
            func write(_ fd: CInt, _ text: String) {
                _ = Array(text.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            /// Sends `text` a byte every `pace` until the server closes; how long it stayed open.
            func dribble(_ fd: CInt, _ text: String, pace: Duration) async throws -> Duration {
                let began = ContinuousClock.now
                for byte in text.utf8 {
                    let n = [byte].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }
                    if n < 0 { break }
                    try await Task.sleep(for: pace)
                    if ContinuousClock.now - began > .seconds(20) { break }
                }
                return ContinuousClock.now - began
            }
            let body = String(repeating: "x", count: 200)
            let slow = try connect()
            defer { close(slow) }
            write(
                slow,
                "POST /v1/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n"
            )
            let bodyOpen = try await dribble(slow, body, pace: .milliseconds(250))
            #expect(bodyOpen < .seconds(5), "a dribbled body held the connection \(bodyOpen)")

            let kept = try connect()
            defer { close(kept) }
            write(kept, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            var answer = [UInt8](repeating: 0, count: 512)
            #expect(recv(kept, &answer, answer.count, 0) > 0)
            let secondOpen = try await dribble(
                kept,
                "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + body,
                pace: .milliseconds(250)
            )
            #expect(secondOpen < .seconds(5), "a dribbled second head held the connection \(secondOpen)")

            // 64 KB in sixteen chunks over 1.5 s: a slow phone, read whole (the server answers it).
            let steady = try connect()
            defer { close(steady) }
            write(
                steady,
                "POST /v1/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 65536\r\n\r\n"
            )
            for _ in 0..<16 {
                write(steady, String(repeating: " ", count: 4096))
                try await Task.sleep(for: .milliseconds(100))
            }
            var reply = [UInt8](repeating: 0, count: 512)
            let n = recv(steady, &reply, reply.count, 0)
            #expect(n > 0 && String(decoding: reply.prefix(max(n, 0)), as: UTF8.self).hasPrefix("HTTP/1.1 4"))
            #expect(try await Self.alive(server))
        }
    }

    /// Anyone who saw a ticket's QR can open its strangers' four streams; the holder's own stream (its token as
    /// a header, or the page's stream key as `key=`) still gets through, and a forged token is a stranger. The
    /// holder token itself opens nothing from a URL (where proxies log it), and a stream key cancels nothing.
    @Test func theHoldersOwnStreamAlwaysGetsThrough() async throws {
        let server = try await ServerRig(limits: PublicLimits())
        try await Self.run(server) { _ in
            let store = try await server.registerStore(["capacity": 1])
            _ = try await server.call("POST", "/v1/stores/\(store.uuidString)/tickets", token: nil)
            let taken = try await server.call("POST", "/v1/stores/\(store.uuidString)/tickets", token: nil)
            let id = try #require((taken.body["ticket"] as? [String: Any])?["id"] as? String)
            let holder = try #require(taken.body["holderToken"] as? String)
            let path = "/v1/tickets/\(id)/events"
            var strangers: [EventStreamClient] = []
            for _ in 0..<4 {
                let stream = try EventStreamClient(port: server.port, path: path)
                #expect(await stream.next() != nil)
                strangers.append(stream)
            }
            let fifth = try EventStreamClient(port: server.port, path: path)
            _ = await fifth.next(timeout: .milliseconds(500))
            #expect(fifth.headers.hasPrefix("HTTP/1.1 429"), "\(fifth.headers)")
            let forged = try EventStreamClient(
                port: server.port,
                path: path,
                headers: ["Clup-Holder": "AAAA" + holder.dropFirst(4)]
            )
            _ = await forged.next(timeout: .milliseconds(500))
            #expect(forged.headers.hasPrefix("HTTP/1.1 429"), "\(forged.headers)")

            let own = try EventStreamClient(port: server.port, path: path, headers: ["Clup-Holder": holder])
            #expect(await own.next() != nil && own.headers.hasPrefix("HTTP/1.1 200"), "\(own.headers)")
            let inURL = holder.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let logged = try EventStreamClient(port: server.port, path: path + "?holder=" + inURL)
            _ = await logged.next(timeout: .milliseconds(500))
            #expect(logged.headers.hasPrefix("HTTP/1.1 429"), "a holder token in a URL is a stranger's")

            // The stream key comes to the holder only (with its token in a header), opens its stream, and is no
            // holder token: it cancels nothing.
            let status = try await server.call("GET", "/v1/tickets/\(id)", token: nil, headers: ["Clup-Holder": holder])
            let key = try #require(status.body["streamKey"] as? String)
            #expect(taken.body["streamKey"] is String, "the answer that takes a ticket gives its key")
            #expect(try await server.call("GET", "/v1/tickets/\(id)", token: nil).body["streamKey"] == nil)
            let query = key.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let page = try EventStreamClient(port: server.port, path: path + "?key=" + query)
            #expect(await page.next() != nil && page.headers.hasPrefix("HTTP/1.1 200"), "\(page.headers)")
            let cancel = try await server.call("DELETE", "/v1/tickets/\(id)", token: nil, headers: ["Clup-Holder": key])
            #expect(cancel.status == 401, "a stream key is not a holder token")
            withExtendedLifetime(strangers) {}
        }
    }

    /// Logging out of the console ends the system manager's session too: its cookie no longer opens the
    /// stores' page (it used to, until it expired).
    @Test func theAdminsLogoutEndsTheSession() async throws {
        let server = try await ServerRig()
        try await Self.run(server) { client in
            let session = try await Self.adminSession(client, server)
            #expect(try await Self.get(client, server.url + "/console/stores", cookie: session).status == 200)
            #expect(try await Self.logOut(client, server, session: session) == 303)
            let after = try await Self.get(client, server.url + "/console/stores", cookie: session)
            #expect(after.status == 303 && after.headers["Location"].first?.hasPrefix("/console/login") == true)
        }
    }

    /// A client that never sends its holder token is a new holder each time: from one address it gets two
    /// tickets (it took five: V001–V005), then waits; a device that sends its token is held to its own rules.
    @Test func holderlessRequestsHaveTheirOwnStricterBudget() async throws {
        let server = try await ServerRig(limits: PublicLimits())
        try await Self.run(server) { _ in
            let store = try await server.registerStore(["capacity": 5])
            let other = try await server.registerStore(["capacity": 5, "name": "Other Market"], manager: "other")
            let tickets = "/v1/stores/\(store.uuidString)/tickets"
            var statuses: [Int] = []
            var holder: String?
            for _ in 0..<5 {
                let answer = try await server.call("POST", tickets, token: nil)
                statuses.append(answer.status)
                holder = holder ?? answer.body["holderToken"] as? String
                if answer.status == 429 {
                    #expect((answer.body["error"] as? String)?.contains("Clup-Holder") == true, "\(answer.body)")
                }
            }
            #expect(statuses == [201, 201, 429, 429, 429], "\(statuses)")
            // The device that kept its token takes its ticket in another store.
            let own = try await server.call(
                "POST",
                "/v1/stores/\(other.uuidString)/tickets",
                token: nil,
                headers: ["Clup-Holder": try #require(holder)]
            )
            #expect(own.status == 201, "\(own.body)")
        }
    }

    /// Runs `body` with an HTTP client that does not follow redirects; stops the server and the client after,
    /// whatever happened.
    static func run(_ server: ServerRig, _ body: (HTTPClient) async throws -> Void) async throws {
        try await ConsoleRig.run(server, body)
    }

    static func alive(_ server: ServerRig) async throws -> Bool {
        try await server.call("GET", "/healthz", token: nil).status == 200
    }
}
