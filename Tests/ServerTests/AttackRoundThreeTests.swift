import AsyncHTTPClient
import Foundation
import Glibc
import KioskCore
import NIOCore
import ServiceSupport
import SyncWire
import Testing

@testable import CLupServer
@testable import Rigs

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The third round of attacks (issue 43), mostly with a kiosk credential — a box in a shop can be stolen, and
/// any store's manager can enroll one: each point as the attacker made it, and what the server does now.
@Suite(.serialized) struct AttackRoundThreeTests {
    static func now() -> Timestamp { Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000)) }

    /// A kiosk's push: the status, the field a refusal names, and the answer.
    static func push(
        _ server: ServerRig,
        _ events: [StoreEvent],
        store: StoreID,
        credential: String,
        headers: [String: String] = [:]
    ) async throws -> (status: Int, field: String?, body: [String: Any]) {
        let answer = try await server.call(
            "POST",
            "/v1/stores/\(store.uuidString)/events",
            token: credential,
            raw: try JSONEncoder().encode(EventBatch(events: events)),
            headers: headers
        )
        return (answer.status, answer.body["field"] as? String, answer.body)
    }

    static func refusedScan(_ store: StoreID, _ device: String, at time: Timestamp) -> StoreEvent {
        .new(.scanRefused(reason: "not a ticket", ticket: nil, door: device), store: store, device: device, at: time)
    }

    /// Critical: store A's kiosk claimed store B's next days' starts (their ids are derived from B's public
    /// id), so B's day never started and B's door, pushing the day's start, was refused with its whole outbox
    /// behind it. A derived id now stands only for the day's start it derives, and ids are unique within a
    /// store: A's log can hold any id without touching B's.
    @Test func oneStoresKioskCannotClaimAnotherStoresDay() async throws {
        let server = try await ServerRig()
        try await AttackRoundTwoTests.run(server) { _ in
            let victim = try await server.registerStore(["name": "Victim Market"], manager: "victim")
            let rogue = try await server.registerStore(["name": "Rogue Market"], manager: "rogue")
            let rogueKiosk = try await server.enroll("rogue", store: rogue)
            let victimDoor = try await server.enroll("door", store: victim, role: .door)
            let now = Self.now()
            let calendar = try #require(server.app.logs.store(victim)?.record.profile.calendar)
            let today = calendar.businessDay(at: now)
            let next = (1...30).map { BusinessDay(number: today.number + $0) }

            // Harmless bodies under the victim's next 30 day-start ids: refused, naming the id.
            let claims = next.map { day -> StoreEvent in
                var event = Self.refusedScan(rogue, "rogue", at: now)
                event.id = StoreEvent.dayStartedID(day, store: victim)
                return event
            }
            let claimed = try await Self.push(server, claims, store: rogue, credential: rogueKiosk)
            #expect(claimed.status == 403 && claimed.field == "events[0].id", "\(claimed)")
            // Its own store's day start under the victim's id: refused too.
            var own = calendar.dayStarted(today, store: rogue, device: "rogue")
            own.id = StoreEvent.dayStartedID(today, store: victim)
            #expect(try await Self.push(server, [own], store: rogue, credential: rogueKiosk).field == "events[0].id")

            // The victim's log: an id of its own log pushed in the rogue store's is the rogue store's own event
            // and blocks nothing of the victim's.
            let app = try await server.call("POST", "/v1/stores/\(victim.uuidString)/tickets", token: nil)
            #expect(app.status == 201)
            let victimLog = try await server.app.database.events(store: victim, after: 0, limit: 100)
            let issued = try #require(victimLog.last { $0.kind == "ticketIssued" })
            var twin = Self.refusedScan(rogue, "rogue", at: now)
            twin.id = issued.id
            let filed = try await Self.push(server, [twin], store: rogue, credential: rogueKiosk)
            let appended = try #require((filed.body["appended"] as? [[String: Any]])?.first)
            #expect(filed.status == 200 && appended["new"] as? Bool == true, "\(filed)")

            // The victim's door writes its day's start as every device does (today's, and the next day's once
            // its line begins): accepted.
            let start = calendar.dayStarted(today, store: victim, device: "door")
            let pushed = try await Self.push(
                server,
                [start, Self.refusedScan(victim, "door", at: now)],
                store: victim,
                credential: victimDoor
            )
            #expect(pushed.status == 200, "\(pushed)")
            #expect(server.queue(victim)?.day == today)
            let log = try await server.app.database.events(store: victim, after: 0, limit: 100)
            #expect(log.filter { $0.id == start.id }.count == 1 && log.contains { $0.kind == "scanRefused" })
        }
    }

    /// A printer's credential admitted, expired and cancelled shoppers' tickets and counted 1,000 exits (the
    /// store then called as if empty). Now each kiosk writes what its role and its tickets allow.
    @Test func aKioskWritesOnlyWhatItsRoleAndItsTicketsAllow() async throws {
        let server = try await ServerRig()
        try await AttackRoundTwoTests.run(server) { _ in
            let store = try await server.registerStore(["capacity": 1])
            let printer = try await server.enroll("printer", store: store, role: .printer)
            let door = try await server.enroll("door", store: store, role: .door)
            let first = try await server.call("POST", "/v1/stores/\(store.uuidString)/tickets", token: nil)
            let second = try await server.call(
                "POST",
                "/v1/stores/\(store.uuidString)/tickets",
                token: nil,
                headers: ["X-Forwarded-For": "10.9.9.9"]
            )
            let called = try #require(
                UUID(uuidString: (first.body["ticket"] as? [String: Any])?["id"] as? String ?? "")
            )
            let waiting = try #require(
                UUID(uuidString: (second.body["ticket"] as? [String: Any])?["id"] as? String ?? "")
            )
            let holder = try #require(second.body["holderToken"] as? String)
            let now = Self.now()
            func attempt(
                _ body: StoreEvent.Body,
                as device: String,
                _ credential: String
            ) async throws -> (Int, String?) {
                let answer = try await Self.push(
                    server,
                    [.new(body, store: store, device: device, at: now)],
                    store: store,
                    credential: credential
                )
                return (answer.status, answer.field)
            }

            // A printer is no door: no admission, expiry, exit or refused scan.
            for body: StoreEvent.Body in [
                .ticketAdmitted(called, door: "printer"), .ticketExpired(called), .customerExited,
                .scanRefused(reason: "x", ticket: nil, door: "printer"),
            ] {
                let (status, field) = try await attempt(body, as: "printer", printer)
                #expect(status == 403 && field == "events[0].body", "\(body): \(status) \(field ?? "")")
            }
            // Nor does it take or void a shopper's ticket.
            #expect(try await attempt(.ticketCancelled(called), as: "printer", printer).0 == 403)
            #expect(try await attempt(.ticketTaken(called), as: "printer", printer).0 == 403)
            // A door prints nothing and voids nothing.
            let paper = Ticket(
                id: .v7(at: now),
                store: store,
                kind: .paper,
                code: TicketCode(prefix: "D", number: 1),
                issuedAt: now,
                issuer: "door"
            )
            #expect(try await attempt(.ticketIssued(paper), as: "door", door) == (403, "events[0].body"))
            #expect(try await attempt(.ticketCancelled(called), as: "door", door).0 == 403)
            // A door expires only a no-show: one called a moment ago, or one not called, is not.
            #expect(try await attempt(.ticketExpired(called), as: "door", door) == (409, "events[0].body.ticketId"))
            #expect(try await attempt(.ticketExpired(waiting), as: "door", door).0 == 409)
            // It admits tickets the log knows, and counts no more exits than people inside.
            #expect(try await attempt(.ticketAdmitted(UUID(), door: "door"), as: "door", door).0 == 409)
            #expect(try await attempt(.customerExited, as: "door", door) == (409, "events[0].body"))
            let exits = (0..<1000).map { _ in StoreEvent.new(.customerExited, store: store, device: "door", at: now) }
            #expect(try await Self.push(server, exits, store: store, credential: door).status == 409)
            #expect(try await attempt(.ticketAdmitted(called, door: "door"), as: "door", door).0 == 200)
            let twoOut = try await Self.push(server, Array(exits.prefix(2)), store: store, credential: door)
            #expect(twoOut.status == 409 && twoOut.field == "events[1].body", "one was inside: \(twoOut)")
            #expect(try await attempt(.customerExited, as: "door", door).0 == 200)
            #expect(server.queue(store)?.inside == 0)

            // The shopper's ticket is as it was, and its holder still cancels it.
            #expect(server.queue(store)?.stage(of: waiting) != .expired)
            let cancelled = try await server.call(
                "DELETE",
                "/v1/tickets/\(waiting.uuidString)",
                token: nil,
                headers: ["Clup-Holder": holder]
            )
            #expect(cancelled.status == 200 && cancelled.body["stage"] as? String == "cancelled")

            // A door admitting one ticket again and again makes one conflict, not one per admission.
            for _ in 0..<5 { _ = try await attempt(.ticketAdmitted(called, door: "door"), as: "door", door) }
            #expect(server.queue(store)?.conflicts.count == 1)
        }
    }

    /// One "character" of 3.9 MB (a letter and two million combining marks) as a refused scan's reason: five made
    /// a page of the log larger than a kiosk reads. A reason is counted in scalars, bounded in bytes first; and a
    /// page of the log is bounded in bytes, so even events stored before that bound reach every kiosk.
    @Test func oneCharacterOfMegabytesIsRefusedAndPagesStayReadable() async throws {
        let server = try await ServerRig()
        try await AttackRoundTwoTests.run(server) { _ in
            let store = try await server.registerStore()
            let credential = try await server.enroll("door", store: store, role: .door)
            let huge = "a" + String(repeating: "\u{0301}", count: 1_950_000)
            #expect(huge.count == 1 && huge.utf8.count > 3_900_000)
            let event = StoreEvent.new(
                .scanRefused(reason: huge, ticket: nil, door: "door"),
                store: store,
                device: "door",
                at: Self.now()
            )
            let refused = try await Self.push(server, [event], store: store, credential: credential)
            #expect(refused.status == 400 && refused.field == "events[0].body.reason", "\(refused.field ?? "")")

            // Such events as an older server stored them (written past the checks): every page still fits.
            let stored = (0..<5).map { _ in
                StoreEvent.new(
                    .scanRefused(reason: huge, ticket: nil, door: "door"),
                    store: store,
                    device: "door",
                    at: Self.now()
                )
            }
            _ = try await server.app.logs.append(stored, store: store)
            var after: Int64 = 0
            var read = 0
            while true {
                let (status, data) = try await server.exchange(
                    "GET",
                    "/v1/stores/\(store.uuidString)/events?after=\(after)&limit=5000",
                    token: credential
                )
                #expect(status == 200 && data.count < 16 << 20, "a page of \(data.count) bytes")
                let page = try JSONDecoder().decode(EventPage.self, from: data)
                guard let last = page.events.last?.sequence else { break }
                #expect(page.events.count <= 2 || data.count <= EventPage.maxBytes)
                read += page.events.count
                after = last
            }
            #expect(read == Int(try #require(server.app.logs.store(store)?.lastSequence)))
        }
    }

    /// An early day's start (within the clock skew before the line begins) carried any time: dated 300 days back,
    /// the new day kept yesterday's whole line. It is kept with the day's own start, as the store's calendar says.
    @Test func aKiosksDayStartIsTheDaysOwnStart() async throws {
        let offset = WallClock.Offset()
        let clock = WallClock.shifted(by: offset)
        let server = try await ServerRig(clock: clock)
        try await AttackRoundTwoTests.run(server) { _ in
            let store = try await server.registerStore()
            let credential = try await server.enroll("door", store: store, role: .door)
            let calendar = try #require(server.app.logs.store(store)?.record.profile.calendar)
            let tomorrow = BusinessDay(number: calendar.businessDay(at: clock.now()).number + 1)
            let begins = calendar.lineStarts(tomorrow)
            offset.move(clock, to: begins - .seconds(60))  // a minute before tomorrow's line: within the skew
            var early = calendar.dayStarted(tomorrow, store: store, device: "door")
            early.time = begins - .seconds(300 * 86_400)
            let pushed = try await Self.push(server, [early], store: store, credential: credential)
            #expect(pushed.status == 200, "\(pushed)")
            let log = try await server.app.database.events(store: store, after: 0, limit: 100)
            let kept = try #require(log.first { $0.id == early.id })
            #expect(kept.time == begins, "kept at \(kept.time.milliseconds), the day begins at \(begins.milliseconds)")
            #expect(server.queue(store)?.dayStartedAt == begins)
        }
    }

    /// An enrolled kiosk registered its own key and signed an "app" code for a shopper's ticket id (read from
    /// the log): the ticket page showed it, and a door admitted it. A code is valid only under its issuer's key;
    /// and a kiosk cannot register another kiosk's key (or one of its 4-byte id) to pass for it.
    @Test func aKiosksKeySignsOnlyItsOwnTickets() async throws {
        let server = try await ServerRig()
        try await AttackRoundTwoTests.run(server) { _ in
            let store = try await server.registerStore()
            let credential = try await server.enroll("rogue", store: store)
            let other = try await server.enroll("copycat", store: store)
            let rogue = TicketSigner()
            let key = rogue.publicKey.rawRepresentation.base64EncodedString()
            let registered = try await server.call(
                "PUT",
                "/v1/devices/self/key",
                token: credential,
                json: ["device": "rogue", "keyId": rogue.keyID.description, "publicKey": key]
            )
            #expect(registered.status == 204)
            let copied = try await server.call(
                "PUT",
                "/v1/devices/self/key",
                token: other,
                json: ["device": "copycat", "keyId": rogue.keyID.description, "publicKey": key]
            )
            #expect(copied.status == 409 && copied.body["field"] as? String == "publicKey", "\(copied.body)")

            let taken = try await server.call("POST", "/v1/stores/\(store.uuidString)/tickets", token: nil)
            let qr = try #require(taken.body["qr"] as? String)
            let id = try #require(UUID(uuidString: (taken.body["ticket"] as? [String: Any])?["id"] as? String ?? ""))
            let ticket = try #require(server.queue(store)?.entries[id]?.ticket)
            let statusURL = ServerApp.Options(adminToken: "").statusURL  // the rig's: HTTPS://CLUP.EXAMPLE/T/
            let forged = TicketCodec.encode(ticket, signer: rogue, prefix: statusURL)
            let real = try await server.exchange("GET", "/T/" + qr.dropFirst(statusURL.count), token: nil)
            #expect(real.status == 200)
            let fake = try await server.exchange("GET", "/T/" + forged.dropFirst(statusURL.count), token: nil)
            #expect(fake.status == 404, "a code under another kiosk's key")
        }
    }

    /// 160 addresses holding idle keep-alive connections filled the 10,000 and every other client was reset.
    /// Now the longest-idle connections make room for new ones; a working one (a long-poll) is never shed.
    @Test func idleConnectionsMakeRoomForNewClients() async throws {
        var limits = ServerRig.crowdConnections
        limits.total = 60
        limits.perAddress = 4
        let server = try await ServerRig(connections: limits)
        try await AttackRoundTwoTests.run(server) { _ in
            let store = try await server.registerStore()
            let credential = try await server.enroll("k1", store: store)
            let before = try #require(server.app.logs.store(store)?.lastSequence)
            let poll = Task {
                try await server.exchange(
                    "GET",
                    "/v1/stores/\(store.uuidString)/events?after=\(before)&wait=30",
                    token: credential
                )
            }
            try await Task.sleep(for: .milliseconds(300))
            // Idle connections from 20 addresses, 3 each (each after one request, kept alive).
            var idle: [CInt] = []
            defer { for fd in idle { close(fd) } }
            for n in 0..<20 {
                for _ in 0..<3 {
                    let fd = try LoopbackSocket.connect(port: server.port, from: "127.0.\(n / 200).\(n % 200 + 10)")
                    let request = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    _ = Array(request.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
                    idle.append(fd)
                }
            }
            try await Task.sleep(for: .milliseconds(500))
            #expect(server.app.connections.total >= 55, "\(server.app.connections.total) connections held")
            // Thirty new clients are each served; the longest idle went to make room.
            for n in 0..<30 {
                let fd = try LoopbackSocket.connect(port: server.port, from: "127.0.9.\(n + 10)")
                defer { close(fd) }
                let request = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                _ = Array(request.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
                var answer = [UInt8](repeating: 0, count: 512)
                var timeout = timeval(tv_sec: 5, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                let count = answer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                #expect(
                    count > 0 && String(decoding: answer.prefix(max(count, 0)), as: UTF8.self).hasPrefix("HTTP/1.1 200")
                )
            }
            // The kiosk's long-poll was working: it is answered when an event comes, not cut off.
            _ = try await Self.push(
                server,
                [Self.refusedScan(store, "k1", at: Self.now())],
                store: store,
                credential: credential
            )
            let polled = try await poll.value
            #expect(polled.status == 200)
            #expect(try JSONDecoder().decode(EventPage.self, from: polled.body).events.count == 1)
        }
    }
}
