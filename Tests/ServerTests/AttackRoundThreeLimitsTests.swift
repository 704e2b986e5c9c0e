import AsyncHTTPClient
import Crypto
import Foundation
import KioskCore
import NIOCore
import ServiceSupport
import SyncWire
import Testing

@testable import CLupServer
@testable import Rigs

/// The third round's attacks on the server's budgets and edges (issue 43, points 7–16): a kiosk's pace, the
/// CSV, spent proofs of work, login sizes, the console's notices and stream, what is kept about holders.
@Suite(.serialized) struct AttackRoundThreeLimitsTests {
    static func paperTickets(
        _ count: Int,
        store: StoreID,
        device: String,
        from start: Timestamp,
        every: Duration
    )
        -> [StoreEvent]
    {
        (0..<count).flatMap { n -> [StoreEvent] in
            let time = start + every * n
            let ticket = Ticket(
                id: .v7(at: time),
                store: store,
                kind: .paper,
                code: TicketCode(prefix: "P", number: n % 60_000 + 1),
                issuedAt: time,
                issuer: device
            )
            return [.new(.ticketIssued(ticket), store: store, device: device, at: time)]
        }
    }

    static func appended(_ answer: (status: Int, field: String?, body: [String: Any])) -> Int {
        (answer.body["appended"] as? [Any])?.count ?? 0
    }

    /// One credential pushed 143,000 paper tickets in 30 s. A kiosk now writes at its devices' pace: what fits
    /// is appended and the rest waits (429 when nothing fits, with Retry-After); a backlog dated while the
    /// server did not hear from the kiosk goes through at once; a flood dated back into a time it did hear from
    /// it earns nothing; a retry of what is in the log costs nothing.
    @Test func aKioskWritesAtItsDevicesPace() async throws {
        let server = try await ServerRig(connections: ConnectionLimits())
        try await AttackRoundTwoTests.run(server) { _ in
            let store = try await server.registerStore(["capacity": 5])
            let flood = try await server.enroll("flood", store: store, role: .printer)
            let now = AttackRoundThreeTests.now()
            let tickets = Self.paperTickets(600, store: store, device: "flood", from: now, every: .milliseconds(1))
            let first = try await AttackRoundThreeTests.push(server, tickets, store: store, credential: flood)
            #expect(
                first.status == 200 && Self.appended(first) == 120,
                "the burst of a printer: \(Self.appended(first))"
            )
            let rest = try await AttackRoundThreeTests.push(
                server,
                Array(tickets[120...]),
                store: store,
                credential: flood
            )
            #expect(rest.status == 429, "\(rest.status)")
            // A retry of what the log holds costs nothing.
            for _ in 0..<3 {
                let again = try await AttackRoundThreeTests.push(
                    server,
                    Array(tickets.prefix(100)),
                    store: store,
                    credential: flood
                )
                #expect(again.status == 200 && Self.appended(again) == 100)
            }
            // Backdated into the time the server heard from it: still refused.
            let backdated = Self.paperTickets(
                100,
                store: store,
                device: "flood",
                from: now - .seconds(3000),
                every: .seconds(20)
            )
            #expect(
                try await AttackRoundThreeTests.push(server, backdated, store: store, credential: flood).status == 429
            )
            #expect(server.queue(store)?.entries.count ?? 0 <= 121)

            // A printer back from three hours cut off pushes them at once: 540 tickets it printed, one every 20 s.
            let back = try await server.enroll("back", store: store, role: .printer)
            let backlog = Self.paperTickets(
                540,
                store: store,
                device: "back",
                from: now - .seconds(10_800),
                every: .seconds(20)
            )
            var pushed = 0
            while pushed < backlog.count {
                let answer = try await AttackRoundThreeTests.push(
                    server,
                    Array(backlog[pushed...].prefix(500)),
                    store: store,
                    credential: back
                )
                #expect(answer.status == 200, "\(answer.status) after \(pushed)")
                guard answer.status == 200 else { break }
                pushed += Self.appended(answer)
            }
            #expect(pushed == 540)
        }
    }

    /// A refused scan's reason with a lone line feed after a carriage return ("\r\n" is one `Character`) started
    /// a row whose first cell was a formula. Fields are worked on scalars now, and any CR or LF is quoted.
    @Test func theCSVNeverStartsACellWithAFormula() async throws {
        for attack in ["ok\r\n=HYPERLINK(\"http://x\")", "ok\n=1+1", "ok\r=1+1", "\r\n@SUM(A1)", "x;-2+3", "\t=1"] {
            let field = EventCSV.field(attack)
            let inner = field.hasPrefix("\"") ? String(field.dropFirst().dropLast()) : field
            let cells = inner.unicodeScalars.split(whereSeparator: { "\r\n;,\t|".unicodeScalars.contains($0) })
                .map { String(String.UnicodeScalarView($0)) }
            for cell in cells where !cell.isEmpty {
                #expect(
                    !"=+-@".unicodeScalars.contains(cell.unicodeScalars.first!),
                    "\(attack.debugDescription): \(field.debugDescription)"
                )
            }
            if attack.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) {
                #expect(field.hasPrefix("\"") && field.hasSuffix("\""), "\(field.debugDescription)")
            }
        }
        // Through the export, from a door's refused scan.
        let server = try await ServerRig()
        try await AttackRoundTwoTests.run(server) { _ in
            let store = try await server.registerStore()
            let door = try await server.enroll("door", store: store, role: .door)
            let reason = "bad code\r\n=HYPERLINK(\"http://attacker.example\")"
            let event = StoreEvent.new(
                .scanRefused(reason: reason, ticket: nil, door: "door"),
                store: store,
                device: "door",
                at: AttackRoundThreeTests.now()
            )
            #expect(try await AttackRoundThreeTests.push(server, [event], store: store, credential: door).status == 200)
            let (status, data) = try await server.exchange(
                "GET",
                "/v1/stores/\(store.uuidString)/export",
                token: ServerRig.adminToken
            )
            let csv = String(decoding: data, as: UTF8.self)
            #expect(status == 200 && csv.contains("'=HYPERLINK"), "\(csv)")
            for line in csv.components(separatedBy: .newlines) {
                #expect(!line.hasPrefix("="), "a row starts with a formula: \(line)")
            }
        }
    }

    /// The spent proofs of work were one table of 200,000 for all stores: once full, every store refused every
    /// ticket. Each store keeps its own; one store filled refuses its own virtual tickets (sending shoppers to
    /// paper), never another store's.
    @Test func spentProofsAreKeptPerStore() throws {
        let work = TicketWork(
            rule: WorkRule(baseBits: 1, maxBits: 1),
            key: SymmetricKey(size: .bits256),
            maxSpentPerStore: 3
        )
        let busy = UUID()
        let calm = UUID()
        let now = Timestamp(seconds: 1_800_000_000)
        func proof(_ store: StoreID, at time: Timestamp = now) -> String {
            let challenge = work.challenge(store: store, at: time)
            return WorkProof.solve(challenge: challenge.challenge, bits: challenge.bits)
        }
        for _ in 0..<3 { try work.spend(proof(busy), store: busy, at: now) }
        #expect(throws: Refusal.self) { try work.spend(proof(busy), store: busy, at: now) }
        do {
            try work.spend(proof(busy), store: busy, at: now)
        } catch {
            #expect(error.code == .unavailable && error.message.contains("paper ticket"))
        }
        try work.spend(proof(calm), store: calm, at: now)
        // Once the challenges expire, the busy store's proofs are forgotten and it takes tickets again.
        try work.spend(proof(busy, at: now + .seconds(121)), store: busy, at: now + .seconds(121))
    }

    /// Failed logins were counted under the user name as sent (16 KB each, its length checked after): +355 MB
    /// for 22,000 attempts. Sizes are checked first, and a name is kept as a fixed-size digest.
    @Test func oversizedLoginsCostNoMemory() async throws {
        let server = try await ServerRig()
        try await AttackRoundTwoTests.run(server) { _ in
            _ = try await server.registerStore(manager: "anna")
            for n in 0..<50 {
                let name = String(repeating: "x", count: 16_000) + "\(n)"
                let answer = try await server.call(
                    "POST",
                    "/v1/login",
                    token: nil,
                    json: ["username": name, "password": "pw"]
                )
                #expect([401, 429].contains(answer.status))
            }
            for n in 0..<5 {
                _ = try await server.call(
                    "POST",
                    "/v1/login",
                    token: nil,
                    json: ["username": "guess\(n)", "password": "pw"]
                )
            }
            let kept = server.app.throttle.footprint
            #expect(kept.records <= 6 && kept.keyBytes <= 6 * 40, "\(kept)")
            #expect(LoginThrottle.userKey(String(repeating: "é", count: 10_000)).utf8.count == 37)
        }
    }

    /// `?revoked=` and `?registered=` showed any text as the console's notice (a phishing line on the real
    /// site). Only notices this server signed are shown.
    @Test func theConsoleShowsOnlyItsOwnNotices() async throws {
        let server = try await ServerRig()
        try await AttackRoundTwoTests.run(server) { client in
            let store = try await server.registerStore()
            _ = try await server.enroll("k1", store: store)
            let session = try await AttackRoundTwoTests.adminSession(client, server)
            let phish = "Your+account+is+locked.+Call+%2B39+000"
            let page = "/console/stores/\(store.uuidString)"
            let forged = try await AttackRoundTwoTests.get(
                client,
                server.url + page + "?revoked=" + phish,
                cookie: session
            )
            #expect(forged.status == 200 && !forged.body.contains("account is locked"))
            let stores = try await AttackRoundTwoTests.get(
                client,
                server.url + "/console/stores?registered=" + phish,
                cookie: session
            )
            #expect(stores.status == 200 && !stores.body.contains("account is locked"))

            let csrf = try #require(forged.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1)
            let revoke = try await AttackRoundTwoTests.post(
                client,
                server.url + page + "/devices/k1/revoke",
                form: "csrf=\(csrf)",
                headers: ["Cookie": session]
            )
            let location = try #require(revoke.headers["Location"].first)
            #expect(revoke.status == 303 && location.contains("revoked-mac="), "\(location)")
            let shown = try await AttackRoundTwoTests.get(client, server.url + location, cookie: session)
            #expect(shown.body.contains("Kiosk k1 revoked."))
        }
    }

    /// The console's live stream kept sending the store's line after its session logged out. It asks at each
    /// heartbeat (5 s) whether the session still may.
    @Test func theConsolesStreamEndsWithItsSession() async throws {
        let server = try await ServerRig()
        try await AttackRoundTwoTests.run(server) { client in
            let store = try await server.registerStore()
            let session = try await AttackRoundTwoTests.adminSession(client, server)
            let stream = try EventStreamClient(
                port: server.port,
                path: "/console/stores/\(store.uuidString)/live",
                headers: ["Cookie": session]
            )
            #expect(await stream.next() != nil, "the stream runs: \(stream.headers)")
            #expect(try await AttackRoundTwoTests.logOut(client, server, session: session) == 303)
            #expect(await stream.ended(within: .seconds(8)), "the stream went on after the logout")
        }
    }

    /// `ticket_holders` was never deleted: a phone's token linked its visits to every store for ever. A holder is
    /// forgotten once the booking horizon and two days have passed since the ticket was issued.
    @Test(arguments: Backend.available) func holdersAreForgottenAfterTheBookingHorizon(_ backend: Backend) async throws
    {
        let server = try await ServerRig(backend: backend)
        try await AttackRoundTwoTests.run(server) { _ in
            let store = try await server.registerStore()
            #expect(try await server.call("POST", "/v1/stores/\(store.uuidString)/tickets", token: nil).status == 201)
            let now = server.app.logs.clock.now()
            let days = HolderRetention.days(bookingHorizonDays: 14)
            #expect(days == 16)
            #expect(try await server.app.logs.removeHolders(olderThan: days, at: now) == 0)
            #expect(try await server.app.database.holders(since: Timestamp(milliseconds: 0)).count == 1)
            #expect(try await server.app.logs.removeHolders(olderThan: days, at: now + .seconds(17 * 86_400)) == 1)
            #expect(try await server.app.database.holders(since: Timestamp(milliseconds: 0)).isEmpty)
        }
    }
}
