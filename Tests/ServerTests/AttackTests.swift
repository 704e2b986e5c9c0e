import CLupServer
import Foundation
import Glibc
import KioskCore
import ServiceSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking

@testable import Rigs
#endif

/// clup-server as an attacker tries it, with the production limits: requests that used to trap the process,
/// thousands of extreme values in every parsed field, a flood of anonymous tickets from one address and from
/// a hundred, a cancel by ticket id alone, a kiosk credential used to rewrite the queue.
@Suite(.serialized) struct AttackTests {
    /// The server is still up, answering.
    static func alive(_ server: ServerRig) async throws -> Bool {
        try await server.call("GET", "/healthz", token: nil).status == 200
    }

    /// Requests `count` at once from up to `width` concurrent clients; the statuses in order.
    static func burst(
        _ count: Int,
        width: Int = 32,
        _ request: @escaping @Sendable (Int) async throws -> Int
    ) async throws -> [Int] {
        try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            var statuses = [Int](repeating: 0, count: count)
            var next = 0
            for _ in 0..<min(width, count) {
                let i = next
                group.addTask { (i, try await request(i)) }
                next += 1
            }
            while let (i, status) = try await group.next() {
                statuses[i] = status
                if next < count {
                    let j = next
                    group.addTask { (j, try await request(j)) }
                    next += 1
                }
            }
            return statuses
        }
    }

    @Test func extremeValuesNeverTrapTheServer() async throws {
        let server = try await ServerRig(limits: PublicLimits())
        do {
            let store = try await server.registerStore()
            let credential = try await server.enroll("k1", store: store)
            let base = "/v1/stores/\(store.uuidString)"
            // The request that stopped the server (Int64 overflow in the slot arithmetic).
            for start in [Int64.min, Int64.max, -1, 0] {
                let answer = try await server.call("POST", "\(base)/bookings", token: nil, json: ["slotStart": start])
                #expect(answer.status == 400 && answer.body["field"] as? String == "slotStart")
            }
            #expect(try await Self.alive(server))

            // Extreme values in every field a route parses, 10,000 requests: never a 5xx, never a trap.
            let numbers: [Any] = [
                Int64.min, Int64.max, Int64.min + 1, -1, 0, 1, 65_536, Int64(Int32.max) + 1, 1e308, -1e308, 0.5,
                "1", "", "💥", String(repeating: "9", count: 400), NSNull(), [1], ["a": 1], true,
            ]
            let texts = [
                "", "../../etc/passwd", "%00", "9999-99-99", "2026-02-31", "-0001-01-01", "0000-01-01",
                "99999-01-01", "2026-1-1", String(repeating: "x", count: 5000), "NaN", "inf", "-inf", "1e400",
            ]
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let requests: [(String, String, String?, Any?)] = numbers.flatMap {
                value -> [(String, String, String?, Any?)] in
                let event: [String: Any] = [
                    "id": UUID().uuidString, "store": store.uuidString, "device": "k1", "time": value,
                    "body": ["type": "customerExited"],
                ]
                let ticket: [String: Any] = [
                    "id": UUID().uuidString, "store": store.uuidString, "kind": 0,
                    "code": ["prefix": "A", "number": value], "issuedAt": now, "issuer": "k1",
                ]
                let issued: [String: Any] = [
                    "id": UUID().uuidString, "store": store.uuidString, "device": "k1", "time": now,
                    "body": ["type": "ticketIssued", "ticket": ticket],
                ]
                let capacity: [String: Any] = [
                    "id": UUID().uuidString, "store": store.uuidString, "device": "k1", "time": now,
                    "body": ["type": "capacityChanged", "capacity": value],
                ]
                let day: [String: Any] = [
                    "id": UUID().uuidString, "store": store.uuidString, "device": "k1", "time": now,
                    "body": ["type": "dayStarted", "day": value],
                ]
                var profile = ServerRig.storeProfile
                profile["capacity"] = value
                var offset = ServerRig.storeProfile
                offset["utcOffsetMinutes"] = value
                var slots = ServerRig.storeProfile
                slots["slotMinutes"] = value
                return [
                    ("POST", "\(base)/bookings", nil, ["slotStart": value]),
                    ("POST", "\(base)/bookings", nil, ["slotStart": now + 86_400_000, "expectedVisitMinutes": value]),
                    ("POST", "\(base)/events", credential, ["events": [event]]),
                    ("POST", "\(base)/events", credential, ["events": [issued]]),
                    ("POST", "\(base)/events", credential, ["events": [capacity]]),
                    ("POST", "\(base)/events", credential, ["events": [day]]),
                    (
                        "POST", "/v1/stores", ServerRig.adminToken,
                        ["store": profile, "manager": ["username": "x", "password": value]]
                    ),
                    (
                        "POST", "/v1/stores", ServerRig.adminToken,
                        ["store": offset, "manager": ["username": "mgr-o", "password": "correct horse battery"]]
                    ),
                    (
                        "POST", "/v1/stores", ServerRig.adminToken,
                        ["store": slots, "manager": ["username": "mgr-s", "password": "correct horse battery"]]
                    ),
                    ("POST", "/v1/login", nil, ["username": value, "password": value]),
                    ("POST", "\(base)/count", ServerRig.adminToken, ["inside": value]),
                    ("POST", "\(base)/let-in", ServerRig.adminToken, ["people": value, "reason": value]),
                    ("POST", "\(base)/pause", ServerRig.adminToken, ["reason": value, "minutes": value]),
                    ("POST", "\(base)/resume", ServerRig.adminToken, ["by": value]),
                    ("PUT", "/v1/devices/self/key", credential, ["device": "k1", "publicKey": value]),
                ]
            }
            let queries = texts.flatMap { text -> [(String, String, String?, Any?)] in
                let q = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                return [
                    ("GET", "\(base)/slots?date=\(q)", nil, nil),
                    ("GET", "/v1/stores?lat=\(q)&lon=\(q)&radiusKm=\(q)", nil, nil),
                    ("GET", "\(base)/events?after=\(q)&wait=0&limit=\(q)", credential, nil),
                    ("GET", "/v1/tickets/\(q)", nil, nil),
                    ("DELETE", "/v1/tickets/\(q)", nil, nil),
                    ("GET", "/v1/stores/\(q)/slots?date=2026-01-01", nil, nil),
                ]
            }
            let all = try (requests + queries).map { method, path, token, json in
                (method, path, token, try json.map { try JSONSerialization.data(withJSONObject: $0) })
            }
            let statuses = try await Self.burst(10_000) { i in
                let (method, path, token, body) = all[i % all.count]
                return try await server.call(method, path, token: token, raw: body).status
            }
            let serverErrors = statuses.enumerated().filter { $0.element >= 500 || $0.element == 0 }
            #expect(
                serverErrors.isEmpty,
                "\(serverErrors.count) answers ≥ 500, e.g. \(serverErrors.prefix(3).map { all[$0.offset % all.count].1 })"
            )
            #expect(statuses.allSatisfy { (200..<500).contains($0) })
            #expect(try await Self.alive(server))
            // Nothing that the checks refused reached the log: no capacity out of range.
            #expect((0...100_000).contains(server.queue(store)?.capacity ?? -1))
            // Nor a count beyond the bounds staff's counts keep (``StaffCount``).
            #expect((0...100_000).contains(server.queue(store)?.inside ?? -1))
            // Nor a pause beyond its bounds (``LinePause``): at most 12 hours, a reason of 1–120 characters.
            if let pause = server.queue(store)?.pauses.latest {
                #expect(pause.until.map { $0 - pause.since <= .seconds(12 * 3_600) } ?? true)
                #expect(LinePause.reason.allows(pause.reason))
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func aFloodOfAnonymousTicketsIsHeldToTheLimits() async throws {
        let offset = WallClock.Offset()
        // The rates, for clients that pay the work (a flood that does not is refused before them:
        // TicketWorkTests); 10,000 proofs would make this test about hashing.
        var limits = PublicLimits()
        limits.work = nil
        // The test's loopback client is the load balancer: its X-Forwarded-For names the client.
        let server = try await ServerRig(
            clock: .shifted(by: offset),
            limits: limits,
            trustedProxies: [CIDR("127.0.0.1")!],
            expiryInterval: .milliseconds(50)
        )
        do {
            let store = try await server.registerStore(["capacity": 10])
            let tickets = "/v1/stores/\(store.uuidString)/tickets"
            // What a rule lets through in `elapsed`: its burst, and one per interval since.
            func allowance(_ rule: RateLimiter.Rule, _ elapsed: Duration) -> Int {
                rule.burst + Int(elapsed / rule.interval) + 1
            }
            // One address, 10,000 requests: its burst, then 429 with Retry-After.
            let floodStart = ContinuousClock.now
            var start = floodStart
            let one = try await Self.burst(10_000) { _ in
                try await server.call("POST", tickets, token: nil, headers: ["X-Forwarded-For": "198.51.100.7"]).status
            }
            // Without a holder token each request is a new holder: the stricter rule of the two holds it.
            let oneAccepted = one.count(where: { $0 == 201 })
            #expect(
                oneAccepted >= limits.newHoldersPerAddress.burst
                    && oneAccepted <= allowance(limits.newHoldersPerAddress, ContinuousClock.now - start)
            )
            #expect(one.allSatisfy { $0 == 201 || $0 == 429 })
            // A client that writes its own X-Forwarded-For is not believed past the trusted proxy.
            let spoofed = try await Self.burst(100) { i in
                try await server.call(
                    "POST",
                    tickets,
                    token: nil,
                    headers: ["X-Forwarded-For": "10.9.\(i).1, 198.51.100.7"]
                ).status
            }
            #expect(spoofed.allSatisfy { $0 == 429 })

            // A hundred addresses, 10,000 requests: the store's burst in all.
            start = ContinuousClock.now
            let hundred = try await Self.burst(10_000) { i in
                try await server.call(
                    "POST",
                    tickets,
                    token: nil,
                    headers: ["X-Forwarded-For": "203.0.113.\(i % 100)"]
                ).status
            }
            let accepted = hundred.count(where: { $0 == 201 })
            let storeAllowance = allowance(limits.ticketsPerStore, ContinuousClock.now - floodStart)
            #expect(accepted + oneAccepted <= storeAllowance, "\(accepted) + \(oneAccepted) accepted")
            #expect(hundred.allSatisfy { $0 == 201 || $0 == 429 })
            let fakes = server.queue(store)?.waiting.count ?? 0
            #expect(fakes == accepted + oneAccepted)
            #expect(fakes < 10 * limits.openTicketsPerPlace)  // the rates held it, not the cap

            // A real customer afterwards: a ticket once the store's rate allows (Retry-After), and called once
            // the fakes ahead, who never come, have had their call window.
            var answer = try await server.call("POST", tickets, token: nil, headers: ["X-Forwarded-For": "192.0.2.1"])
            if answer.status == 429 {
                offset.advance(by: limits.ticketsPerStore.interval)
                answer = try await server.call("POST", tickets, token: nil, headers: ["X-Forwarded-For": "192.0.2.1"])
            }
            #expect(answer.status == 201)
            let id = try #require((answer.body["ticket"] as? [String: Any])?["id"] as? String)
            #expect((answer.body["peopleAhead"] as? Int ?? 99) <= fakes)
            let estimate = try #require(answer.body["estimatedWaitSeconds"] as? Int)
            // Minute by minute, the no-show expiry clearing the fakes as their windows end.
            var waited = 0
            var stage = answer.body["stage"] as? String ?? ""
            while stage != "called" && waited < 3 * 3600 {
                offset.advance(by: .seconds(60))
                waited += 60
                try await Task.sleep(for: .milliseconds(120))
                stage = try await server.call("GET", "/v1/tickets/\(id)", token: nil).body["stage"] as? String ?? ""
            }
            #expect(stage == "called")
            #expect(waited <= estimate, "called after \(waited) s, estimated \(estimate) s")
            #expect(try await Self.alive(server))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func aHolderHasOneLiveTicketPerStoreAndAFewBookings() async throws {
        let server = try await ServerRig(limits: PublicLimits())
        do {
            let store = try await server.registerStore(["capacity": 5, "slotSize": 5])
            let tickets = "/v1/stores/\(store.uuidString)/tickets"
            let first = try await server.call("POST", tickets, token: nil)
            #expect(first.status == 201)
            let holder = try #require(first.body["holderToken"] as? String)
            var answer = try await server.call("POST", tickets, token: nil, headers: ["Clup-Holder": holder])
            #expect(answer.status == 409 && (answer.body["error"] as? String)?.contains("V001") == true)
            // A made-up token is not a fresh allowance.
            answer = try await server.call("POST", tickets, token: nil, headers: ["Clup-Holder": "made.up"])
            #expect(answer.status == 401)
            // Cancelled, the holder may take another.
            let id = try #require((first.body["ticket"] as? [String: Any])?["id"] as? String)
            answer = try await server.call("DELETE", "/v1/tickets/\(id)", token: nil, headers: ["Clup-Holder": holder])
            #expect(answer.status == 200)
            answer = try await server.call("POST", tickets, token: nil, headers: ["Clup-Holder": holder])
            #expect(answer.status == 201 && answer.body["holderToken"] == nil)

            // Bookings: within the horizon only, and at most four per holder.
            let slots = try await server.call(
                "GET",
                "/v1/stores/\(store.uuidString)/slots?date=\(Self.date(daysAhead: 1))",
                token: nil
            )
            let starts = (slots.body["slots"] as? [[String: Any]] ?? []).compactMap { $0["start"] as? Int64 }
            try #require(starts.count >= 5)
            let far = try await server.call(
                "GET",
                "/v1/stores/\(store.uuidString)/slots?date=\(Self.date(daysAhead: 30))",
                token: nil
            )
            #expect(far.status == 400 && far.body["field"] as? String == "date")
            let bookings = "/v1/stores/\(store.uuidString)/bookings"
            for start in starts.prefix(4) {
                answer = try await server.call(
                    "POST",
                    bookings,
                    token: nil,
                    json: ["slotStart": start],
                    headers: ["Clup-Holder": holder]
                )
                #expect(answer.status == 201)
            }
            answer = try await server.call(
                "POST",
                bookings,
                token: nil,
                json: ["slotStart": starts[4]],
                headers: ["Clup-Holder": holder]
            )
            #expect(answer.status == 409)
            answer = try await server.call(
                "POST",
                bookings,
                token: nil,
                json: ["slotStart": starts[0] + 40 * 86_400_000]
            )
            #expect(answer.status == 400 && answer.body["field"] as? String == "slotStart")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func aKioskCredentialCannotRewriteTheQueue() async throws {
        let server = try await ServerRig(limits: PublicLimits())
        do {
            // Midday on the store's clock, so that a ticket backdated an hour is of the same business day.
            let now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
            let utcHour = Int(now.milliseconds / 3_600_000 % 24)
            let store = try await server.registerStore(["utcOffsetMinutes": (12 - utcHour) * 60])
            let credential = try await server.enroll("k1", store: store)
            func ticket(kind: TicketKind = .paper, issuer: DeviceID = "k1", at time: Timestamp = now) -> StoreEvent {
                let t = Ticket(
                    id: .v7(at: time),
                    store: store,
                    kind: kind,
                    code: TicketCode(prefix: "A", number: 1),
                    issuedAt: time,
                    issuer: issuer
                )
                return StoreEvent(id: .v7(at: time), store: store, device: "k1", time: time, body: .ticketIssued(t))
            }
            let path = "/v1/stores/\(store.uuidString)/events"
            for (event, field) in [
                (ticket(at: now + .seconds(3600)), "events[0].time"),
                (ticket(kind: .app), "events[0].body.ticket.kind"),
                (ticket(issuer: "k2"), "events[0].body.ticket.issuer"),
            ] {
                let answer = try await server.call(
                    "POST",
                    path,
                    token: credential,
                    raw: try JSONEncoder().encode(["events": [event]])
                )
                #expect((400..<500).contains(answer.status) && answer.body["field"] as? String == field)
            }
            #expect(server.queue(store)?.entries.isEmpty == true)

            // Backdating does not jump the line: a shopper takes V001 now; the kiosk then pushes a paper ticket
            // it says was torn off an hour ago (what an offline kiosk does, and a misused credential could).
            // It is accepted, stamped with its arrival, and waits behind V001; a stamp of the kiosk's own is
            // ignored.
            #expect(try await server.call("POST", "/v1/stores/\(store.uuidString)/tickets", token: nil).status == 201)
            let hourAgo = now - .seconds(3600)
            let paper = ticket(at: hourAgo)
            var taken = StoreEvent(
                id: .v7(at: hourAgo + .seconds(1)),
                store: store,
                device: "k1",
                time: hourAgo + .seconds(1),
                body: .ticketTaken(paper.ticketID!)
            )
            taken.receivedAt = hourAgo
            let late = try await server.call(
                "POST",
                path,
                token: credential,
                raw: try JSONEncoder().encode(["events": [paper, taken]])
            )
            #expect(late.status == 200)
            #expect(server.queue(store)?.waiting.map(\.code.description) == ["V001", "A001"])
            let page = try await server.call("GET", path + "?after=0", token: credential)
            let stamps = (page.body["events"] as? [[String: Any]] ?? []).compactMap { $0["receivedAt"] as? Int }
            #expect(stamps.count == 2 && stamps.allSatisfy { $0 >= Int(now.milliseconds) }, "\(stamps)")

            // One envelope for the framework's own errors too: unknown route, a path parameter that is no UUID.
            for (method, path) in [("GET", "/v1/nothing"), ("GET", "/v1/tickets/42"), ("PATCH", "/v1/stores")] {
                let answer = try await server.call(method, path, token: nil)
                #expect((400..<500).contains(answer.status))
                #expect(answer.body.keys.sorted() == ["error"], "\(method) \(path): \(answer.body)")
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    static func date(daysAhead: Int) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(secondsFromGMT: 3600)
        return formatter.string(from: Date().addingTimeInterval(Double(daysAhead) * 86_400))
    }

    /// A connection from `source` (any 127.x address) that sends the start of a request head and then
    /// nothing more: a slow-loris client.
    final class SlowClient {
        let fd: CInt

        init(port: Int, source: String) throws {
            fd = try LoopbackSocket.connect(port: port, from: source)
            let start = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
            _ = Array(start.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }

        deinit { close(fd) }

        /// Whether the server closed the connection.
        var closedByServer: Bool {
            var byte: UInt8 = 0
            let n = recv(fd, &byte, 1, 0)
            return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
        }
    }

    /// One address sending requests back to back gets its burst, then one per interval: its requests wait
    /// their turn (nothing refused, nothing dropped), while another address is served at once throughout.
    @Test func aFloodFromOneAddressWaitsItsTurn() async throws {
        var connections = ConnectionLimits()
        connections.requestsPerAddress = RateLimiter.Rule(burst: 20, interval: .milliseconds(10))
        // The test's loopback client is the load balancer: X-Forwarded-For names the client.
        let server = try await ServerRig(trustedProxies: [CIDR("127.0.0.1")!], connections: connections)
        do {
            let started = ContinuousClock.now
            async let flood = Self.burst(300, width: 16) { _ in
                try await server.call("GET", "/healthz", token: nil, headers: ["X-Forwarded-For": "198.51.100.9"])
                    .status
            }
            var served: [Duration] = []
            for _ in 0..<30 {
                let sent = ContinuousClock.now
                let status = try await server.call(
                    "GET",
                    "/healthz",
                    token: nil,
                    headers: ["X-Forwarded-For": "192.0.2.5"]
                ).status
                #expect(status == 200)
                served.append(ContinuousClock.now - sent)
                try await Task.sleep(for: .milliseconds(20))
            }
            let statuses = try await flood
            let floodTime = ContinuousClock.now - started
            #expect(statuses.allSatisfy { $0 == 200 })
            // 280 requests past the burst, one per 10 ms: at least 2.8 s (less the test's own slack).
            #expect(floodTime >= .milliseconds(2500), "the flood took \(floodTime)")
            let slowest = served.max() ?? .zero
            #expect(slowest < .milliseconds(500), "a served request took \(slowest) during the flood")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func slowLorisConnectionsDoNotStarveOtherClients() async throws {
        var connections = ConnectionLimits()
        connections.headDeadline = .seconds(8)  // opening 2,000 connections takes a few seconds here
        let server = try await ServerRig(limits: PublicLimits(), connections: connections)
        do {
            // 1,000 from one address: 64 are held, the rest closed at once.
            let one = try (0..<1000).map { _ in try SlowClient(port: server.port, source: "127.0.0.2") }
            try await Task.sleep(for: .milliseconds(300))
            let held = one.count { !$0.closedByServer }
            #expect(held == connections.perAddress, "\(held) of 1,000 held from one address")
            // 1,000 from 1,000 addresses: held, each until its head deadline.
            let opening = ContinuousClock.now
            let many = try (0..<1000).map { i in
                try SlowClient(port: server.port, source: "127.0.\(1 + i / 250).\(1 + i % 250)")
            }
            let opened = ContinuousClock.now
            try await Task.sleep(for: .milliseconds(300))
            let closed = many.count(where: \.closedByServer)
            #expect(closed == 0, "\(closed) of 1,000 closed early; opening them took \(ContinuousClock.now - opening)")
            // Meanwhile everyone else is served.
            let statuses = try await Self.burst(200, width: 16) { _ in
                try await server.call("GET", "/healthz", token: nil).status
            }
            #expect(statuses.allSatisfy { $0 == 200 })
            // Past the deadline, every slow connection is gone.
            try await Task.sleep(until: opened + connections.headDeadline + .seconds(1))
            #expect(one.allSatisfy(\.closedByServer) && many.allSatisfy(\.closedByServer))
            #expect(try await Self.alive(server))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
