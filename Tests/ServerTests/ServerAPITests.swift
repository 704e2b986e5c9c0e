import CLupServer
import Foundation
import KioskCore
import ServiceSupport
import Testing

@testable import Rigs

/// clup-server's API over loopback: who may call what, bad requests answered with the field at fault and
/// nothing half-written, and an idempotent event log with per-store sequence numbers.
@Suite(.serialized) struct ServerAPITests {
    @Test(arguments: Backend.available) func registrationAndEnrollmentAreGuarded(_ backend: Backend) async throws {
        let server = try await ServerRig(backend: backend)
        do {
            let profile: [String: Any] = ServerRig.storeProfile
            let manager = ["username": "anna", "password": "correct horse battery"]
            // No token, a wrong token: 401 without saying which.
            #expect(
                try await server.call("POST", "/v1/stores", token: nil, json: ["store": profile, "manager": manager])
                    .status == 401
            )
            #expect(
                try await server.call(
                    "POST",
                    "/v1/stores",
                    token: "nope",
                    json: ["store": profile, "manager": manager]
                ).status == 401
            )
            // Bad bodies name the field.
            var bad = profile
            bad["capacity"] = 0
            var answer = try await server.call("POST", "/v1/stores", json: ["store": bad, "manager": manager])
            #expect(answer.status == 400 && answer.body["field"] as? String == "store.capacity")
            bad = profile
            bad["location"] = ["latitude": "north", "longitude": 9]
            answer = try await server.call("POST", "/v1/stores", json: ["store": bad, "manager": manager])
            #expect(answer.status == 400 && answer.body["field"] as? String == "store.location.latitude")
            bad = profile
            bad.removeValue(forKey: "openingHours")
            answer = try await server.call("POST", "/v1/stores", json: ["store": bad, "manager": manager])
            #expect(answer.status == 400 && answer.body["field"] as? String == "store.openingHours")
            answer = try await server.call("POST", "/v1/stores", raw: Data("{\"store\": ".utf8))
            #expect(answer.status == 400 && (answer.body["error"] as? String)?.contains("JSON") == true)
            answer = try await server.call("POST", "/v1/stores", raw: Data(repeating: 0x20, count: 2 << 20))
            #expect(answer.status == 413)
            #expect(server.app.logs.all.isEmpty)  // nothing half-written

            let id = try await server.registerStore(manager: "anna")
            answer = try await server.call(
                "POST",
                "/v1/stores",
                json: ["store": profile, "manager": ["username": "bob", "password": "correct horse battery"]]
            )
            #expect(answer.status == 409 && (answer.body["error"] as? String)?.contains("already registered") == true)
            #expect(server.app.logs.all.count == 1)

            answer = try await server.call("POST", "/v1/stores/\(UUID().uuidString)/devices", json: ["device": "k1"])
            #expect(answer.status == 404)
            answer = try await server.call("POST", "/v1/stores/\(id.uuidString)/devices", json: ["device": ""])
            #expect(answer.status == 400 && answer.body["field"] as? String == "device")
            let credential = try await server.enroll("k1", store: id)
            // A device reads its own store's log, not another's, and never enrolls devices.
            #expect(try await server.call("GET", "/v1/stores/\(id.uuidString)/events", token: credential).status == 200)
            let other = try await server.registerStore(["name": "Other Market"], manager: "carla")
            #expect(
                try await server.call("GET", "/v1/stores/\(other.uuidString)/events", token: credential).status == 403
            )
            #expect(
                try await server.call(
                    "POST",
                    "/v1/stores/\(id.uuidString)/devices",
                    token: credential,
                    json: ["device": "k2"]
                ).status == 401
            )
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test(arguments: Backend.available) func theEventLogIsIdempotentAndOrdered(_ backend: Backend) async throws {
        let server = try await ServerRig(backend: backend)
        do {
            let store = try await server.registerStore()
            let credential = try await server.enroll("k1", store: store)
            let now = WallClock.system.now()
            let ticket = Ticket(
                id: .v7(at: now),
                store: store,
                kind: .paper,
                code: TicketCode(prefix: "A", number: 1),
                issuedAt: now,
                issuer: "k1"
            )
            func event(_ body: StoreEvent.Body, device: String = "k1", store: StoreID? = nil) -> StoreEvent {
                StoreEvent(id: .v7(at: now), store: store ?? ticket.store, device: device, time: now, body: body)
            }
            let events = [event(.ticketIssued(ticket)), event(.ticketTaken(ticket.id))]
            let batch = try JSONEncoder().encode(["events": events])
            let path = "/v1/stores/\(store.uuidString)/events"
            var answer = try await server.call("POST", path, token: credential, raw: batch)
            #expect(answer.status == 200)
            let first = answer.body["appended"] as? [[String: Any]] ?? []
            // The store's log begins with its day's start (sequence 1).
            #expect(first.map { $0["sequence"] as? Int } == [2, 3] && first.allSatisfy { $0["new"] as? Bool == true })
            // The same batch again (a retry after a lost answer): same sequences, nothing new.
            answer = try await server.call("POST", path, token: credential, raw: batch)
            let again = answer.body["appended"] as? [[String: Any]] ?? []
            #expect(again.map { $0["sequence"] as? Int } == [2, 3] && again.allSatisfy { $0["new"] as? Bool == false })
            #expect(server.queue(store)?.waiting.count == 1)

            // Someone else's device id or store, a broken event: refused whole, with the field.
            answer = try await server.call(
                "POST",
                path,
                token: credential,
                raw: try JSONEncoder().encode([
                    "events": [event(Self.refusedScan), event(Self.refusedScan, device: "k9")]
                ])
            )
            #expect(answer.status == 403 && answer.body["field"] as? String == "events[1].device")
            answer = try await server.call(
                "POST",
                path,
                token: credential,
                raw: try JSONEncoder().encode(["events": [event(Self.refusedScan, store: UUID())]])
            )
            #expect(answer.status == 400 && answer.body["field"] as? String == "events[0].store")
            answer = try await server.call("POST", path, token: credential, json: ["events": [["id": "x"]]])
            #expect(answer.status == 400 && (answer.body["field"] as? String)?.hasPrefix("events[0]") == true)
            #expect(server.app.logs.store(store)?.lastSequence == 3)

            // Reading: from a sequence; a long-poll returns as soon as an event arrives.
            answer = try await server.call("GET", path + "?after=2", token: credential)
            #expect((answer.body["events"] as? [[String: Any]])?.count == 1 && answer.body["last"] as? Int == 3)
            answer = try await server.call("GET", path + "?after=abc", token: credential)
            #expect(answer.status == 400 && answer.body["field"] as? String == "after")
            let started = ContinuousClock.now
            async let polled = server.call("GET", path + "?after=3&wait=20", token: credential)
            try await Task.sleep(for: .milliseconds(300))
            _ = try await server.call(
                "POST",
                path,
                token: credential,
                raw: try JSONEncoder().encode(["events": [event(Self.refusedScan)]])
            )
            let page = try await polled
            #expect((page.body["events"] as? [[String: Any]])?.first?["sequence"] as? Int == 4)
            #expect(ContinuousClock.now - started < .seconds(5))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// A holder token with its MAC's first character changed: one this server did not make. (Changing the last
    /// two characters was not always a change: base64's last character carries padding bits.)
    static func forged(_ token: String) -> String {
        guard let dot = token.firstIndex(of: ".") else { return token + "x" }
        let at = token.index(after: dot)
        return String(token[...dot]) + (token[at] == "A" ? "B" : "A") + token[token.index(after: at)...]
    }

    /// An event that changes nothing in the queue, which a door may always write: a scan it refused.
    static let refusedScan = StoreEvent.Body.scanRefused(reason: "not a ticket", ticket: nil, door: "k1")

    /// The app's side: stores near a point, a virtual ticket with its place and wait, live updates until it
    /// ends, cancelling; no credentials, nothing personal.
    @Test(arguments: Backend.available) func virtualTicketsNearbyStoresAndLiveStatus(_ backend: Backend) async throws {
        let server = try await ServerRig(backend: backend)
        do {
            let milano = try await server.registerStore(["capacity": 1], manager: "anna")
            _ = try await server.registerStore(
                ["name": "Far Market", "location": ["latitude": 41.9, "longitude": 12.5]],
                manager: "bruno"
            )
            var answer = try await server.call("GET", "/v1/stores?lat=45.47&lon=9.2&radiusKm=5", token: nil)
            let near = answer.body["stores"] as? [[String: Any]] ?? []
            #expect(near.map { $0["name"] as? String } == ["Test Market"])
            #expect((near.first?["distanceKm"] as? Double ?? 99) < 2)
            answer = try await server.call("GET", "/v1/stores?lat=95&lon=9.2", token: nil)
            #expect(answer.status == 400 && answer.body["field"] as? String == "lat")
            answer = try await server.call("GET", "/v1/stores?lon=9.2", token: nil)
            #expect(answer.status == 400 && answer.body["field"] as? String == "lat")
            // The schema's search object: radiusKm only with a point, and nothing beside its four parameters.
            answer = try await server.call("GET", "/v1/stores?q=Test&radiusKm=5", token: nil)
            #expect(answer.status == 400 && answer.body["field"] as? String == "radiusKm")
            answer = try await server.call("GET", "/v1/stores?q=Test&=null", token: nil)
            #expect(answer.status == 400 && answer.body["field"] as? String == "search")
            answer = try await server.call("GET", "/v1/stores?q=Test&lang=it", token: nil)
            #expect(answer.status == 400 && answer.body["field"] as? String == "search")

            let tickets = "/v1/stores/\(milano.uuidString)/tickets"
            let first = try await server.call("POST", tickets, token: nil)
            let second = try await server.call("POST", tickets, token: nil)
            #expect(first.status == 201 && second.status == 201)
            #expect((first.body["ticket"] as? [String: Any])?["code"] as? String == "V001")
            #expect((second.body["ticket"] as? [String: Any])?["code"] as? String == "V002")
            #expect(first.body["stage"] as? String == "called" && first.body["peopleAhead"] as? Int == 0)
            #expect(second.body["stage"] as? String == "waiting" && second.body["peopleAhead"] as? Int == 1)
            // No history: the prior (a 20-minute average visit, capacity 1): the second waits about the first's
            // visit, less the chance that it never comes; the range holds the point.
            let told = second.body["estimatedWaitSeconds"] as? Int ?? 0
            let low = second.body["estimatedWaitLowSeconds"] as? Int ?? -1
            let high = second.body["estimatedWaitHighSeconds"] as? Int ?? -1
            #expect((12 * 60...22 * 60).contains(told), "\(told) s")
            #expect(low < told && told < high && high <= 45 * 60, "\(low)–\(high) s")
            #expect((first.body["qr"] as? String)?.hasPrefix("HTTPS://CLUP.EXAMPLE/T/") == true)
            #expect(try await server.call("POST", "/v1/stores/\(UUID().uuidString)/tickets", token: nil).status == 404)
            #expect(try await server.call("GET", "/v1/tickets/not-a-uuid", token: nil).status == 400)

            // The second ticket's stream: waiting, then called once the first is cancelled, then cancelled.
            let firstID = try #require((first.body["ticket"] as? [String: Any])?["id"] as? String)
            let secondID = try #require((second.body["ticket"] as? [String: Any])?["id"] as? String)
            let stream = try EventStreamClient(port: server.port, path: "/v1/tickets/\(secondID)/events")
            func stage(_ data: String?) -> String? {
                data.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }?["stage"]
                    as? String
            }
            #expect(stage(await stream.next()) == "waiting")
            // Only the device that took a ticket cancels it: not who knows its id, not another holder.
            let firstHolder = try #require(first.body["holderToken"] as? String)
            let secondHolder = try #require(second.body["holderToken"] as? String)
            #expect(try await server.call("DELETE", "/v1/tickets/\(firstID)", token: nil).status == 401)
            answer = try await server.call(
                "DELETE",
                "/v1/tickets/\(firstID)",
                token: nil,
                headers: ["Clup-Holder": secondHolder]
            )
            #expect(answer.status == 403)
            answer = try await server.call(
                "DELETE",
                "/v1/tickets/\(firstID)",
                token: nil,
                headers: ["Clup-Holder": Self.forged(firstHolder)]
            )
            #expect(answer.status == 401 && answer.body["field"] as? String == "Clup-Holder")
            answer = try await server.call(
                "DELETE",
                "/v1/tickets/\(firstID)",
                token: nil,
                headers: ["Clup-Holder": firstHolder]
            )
            #expect(answer.status == 200 && answer.body["stage"] as? String == "cancelled")
            #expect(stage(await stream.next()) == "called")
            _ = try await server.call(
                "DELETE",
                "/v1/tickets/\(secondID)",
                token: nil,
                headers: ["Clup-Holder": secondHolder]
            )
            #expect(stage(await stream.next()) == "cancelled")
            #expect(await stream.ended(within: .seconds(5)))  // the app closes its EventSource on a final stage
            #expect(server.queue(milano)?.waiting.isEmpty == true)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Booking a visit: the free slots of tomorrow, a booking signed to be valid from its slot's start to five
    /// minutes after, the slot full after its last place, and bad requests naming the field.
    @Test(arguments: Backend.available) func bookingsTakeTheirSlot(_ backend: Backend) async throws {
        let server = try await ServerRig(backend: backend)
        do {
            let store = try await server.registerStore(
                ["slotSize": 1, "slotMinutes": 30, "openingHours": ServerRig.hours("07:00", "22:00")]
            )
            let tomorrow = Date().addingTimeInterval(86_400 + 3600)  // the store is UTC+1
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyy-MM-dd"
            formatter.timeZone = TimeZone(secondsFromGMT: 3600)
            let date = formatter.string(from: tomorrow)
            var answer = try await server.call("GET", "/v1/stores/\(store.uuidString)/slots?date=\(date)", token: nil)
            let slots = answer.body["slots"] as? [[String: Any]] ?? []
            #expect(slots.count == 30)  // 07:00–22:00 in 30-minute slots
            let first = try #require(slots.first)
            let start = try #require(first["start"] as? Int)
            #expect(first["available"] as? Int == 1)
            #expect((start / 1000 + 3600) % 86_400 == 7 * 3600)  // 07:00 local

            let bookings = "/v1/stores/\(store.uuidString)/bookings"
            answer = try await server.call(
                "POST",
                bookings,
                token: nil,
                json: ["slotStart": start, "expectedVisitMinutes": 30]
            )
            #expect(answer.status == 201, "\(answer.body)")
            #expect((answer.body["ticket"] as? [String: Any])?["code"] as? String == "B001")
            #expect(answer.body["stage"] as? String == "booked")
            let qr = try #require(answer.body["qr"] as? String)
            let ring = KeyRing([try #require(server.app.logs.store(store)?.record.signer.publicKey)])
            let claims = try TicketCodec.decode(qr, prefix: "HTTPS://CLUP.EXAMPLE/T/", keyRing: ring, store: store)
            #expect(claims.validFrom == Timestamp(milliseconds: Int64(start)))
            #expect(claims.validUntil == Timestamp(milliseconds: Int64(start) + 5 * 60_000))

            answer = try await server.call("POST", bookings, token: nil, json: ["slotStart": start])
            #expect(answer.status == 409 && answer.body["field"] as? String == "slotStart")
            answer = try await server.call("GET", "/v1/stores/\(store.uuidString)/slots?date=\(date)", token: nil)
            #expect((answer.body["slots"] as? [[String: Any]])?.first?["available"] as? Int == 0)
            answer = try await server.call("POST", bookings, token: nil, json: ["slotStart": start + 60_000])
            #expect(answer.status == 400 && answer.body["field"] as? String == "slotStart")
            answer = try await server.call(
                "POST",
                bookings,
                token: nil,
                json: ["slotStart": start + 1_800_000, "expectedVisitMinutes": 1]
            )
            #expect(answer.status == 400 && answer.body["field"] as? String == "expectedVisitMinutes")
            answer = try await server.call("GET", "/v1/stores/\(store.uuidString)/slots?date=2026-13-01", token: nil)
            #expect(answer.status == 400 && answer.body["field"] as? String == "date")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Manager login: a token that enrolls the manager's own store's kiosks; wrong credentials say nothing
    /// about which part was wrong, and a guesser is slowed down.
    @Test(arguments: Backend.available) func managersLogInAndGuessersAreSlowedDown(_ backend: Backend) async throws {
        // Loopback is the proxy: X-Forwarded-For names other clients.
        let server = try await ServerRig(trustedProxies: [CIDR("127.0.0.1")!], backend: backend)
        do {
            let store = try await server.registerStore(manager: "anna")
            let other = try await server.registerStore(["name": "Other Market"], manager: "bruno")
            let wrongPassword = try await server.call(
                "POST",
                "/v1/login",
                token: nil,
                json: ["username": "anna", "password": "guess one"]
            )
            let wrongUser = try await server.call(
                "POST",
                "/v1/login",
                token: nil,
                json: ["username": "nobody", "password": "guess one"]
            )
            #expect(wrongPassword.status == 401 && wrongUser.status == 401)
            #expect(wrongPassword.body["error"] as? String == wrongUser.body["error"] as? String)

            let login = try await server.call(
                "POST",
                "/v1/login",
                token: nil,
                json: ["username": "anna", "password": "correct horse battery"]
            )
            #expect(login.status == 200 && login.body["store"] as? String == store.uuidString)
            let token = try #require(login.body["token"] as? String)
            #expect(
                try await server.call(
                    "POST",
                    "/v1/stores/\(store.uuidString)/devices",
                    token: token,
                    json: ["device": "k1"]
                ).status == 201
            )
            #expect(
                try await server.call(
                    "POST",
                    "/v1/stores/\(other.uuidString)/devices",
                    token: token,
                    json: ["device": "k1"]
                ).status == 403
            )
            // A manager is not the system manager.
            #expect(try await server.call("POST", "/v1/stores", token: token, json: [:]).status == 401)

            // Bruno logs in from his phone once: it is a device he logged in from.
            let phone = try await server.call(
                "POST",
                "/v1/login",
                token: nil,
                json: ["username": "bruno", "password": "correct horse battery"],
                headers: ["X-Forwarded-For": "192.0.2.44"]
            )
            let device = try #require(phone.body["device"] as? String)
            // A guesser: the first failures are answered at once, then attempts must wait.
            var statuses: [Int] = []
            for n in 0..<6 {
                let answer = try await server.call(
                    "POST",
                    "/v1/login",
                    token: nil,
                    json: ["username": "bruno", "password": "guess \(n)"]
                )
                statuses.append(answer.status)
            }
            #expect(statuses.prefix(4) == [401, 401, 401, 401])
            #expect(statuses.last == 429)
            let blocked = try await server.call(
                "POST",
                "/v1/login",
                token: nil,
                json: ["username": "bruno", "password": "correct horse battery"]
            )
            #expect(blocked.status == 429, "the right password from the guessing address waits too")
            // A guesser spread over other addresses does not get to try the name meanwhile (the password is not
            // even checked), whatever it sends.
            let elsewhere = try await server.call(
                "POST",
                "/v1/login",
                token: nil,
                json: ["username": "bruno", "password": "correct horse battery"],
                headers: ["X-Forwarded-For": "203.0.113.77"]
            )
            #expect(elsewhere.status == 429)
            let forged = try await server.call(
                "POST",
                "/v1/login",
                token: nil,
                json: [
                    "username": "bruno", "password": "correct horse battery",
                    "device": "AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA",
                ],
                headers: ["X-Forwarded-For": "203.0.113.78"]
            )
            #expect(forged.status == 429)
            let annasDevice = try #require(login.body["device"] as? String)
            let borrowed = try await server.call(
                "POST",
                "/v1/login",
                token: nil,
                json: ["username": "bruno", "password": "correct horse battery", "device": annasDevice],
                headers: ["X-Forwarded-For": "203.0.113.79"]
            )
            #expect(borrowed.status == 429)
            // Bruno's phone, a device he logged in from, is not locked out by someone else's guesses; another
            // user's device token does not vouch for him.
            let own = try await server.call(
                "POST",
                "/v1/login",
                token: nil,
                json: ["username": "bruno", "password": "correct horse battery", "device": device],
                headers: ["X-Forwarded-For": "192.0.2.44"]
            )
            #expect(own.status == 200)
            #expect(own.body["device"] as? String == device)
            // An address that guesses many names is refused before its passwords are even hashed.
            var fromOne: [Int] = []
            for n in 0..<12 {
                fromOne.append(
                    try await server.call(
                        "POST",
                        "/v1/login",
                        token: nil,
                        json: ["username": "name\(n)", "password": "guess"],
                        headers: ["X-Forwarded-For": "198.51.100.9"]
                    ).status
                )
            }
            #expect(fromOne.prefix(10).allSatisfy { $0 == 401 } && fromOne.last == 429)
            // The same time for an unknown name as for a known one (both hash a password).
            func timed(_ user: String) async throws -> Duration {
                let start = ContinuousClock.now
                _ = try await server.call(
                    "POST",
                    "/v1/login",
                    token: nil,
                    json: ["username": user, "password": "wrong password"],
                    headers: ["X-Forwarded-For": "192.0.2.\(Int.random(in: 100...200))"]
                )
                return ContinuousClock.now - start
            }
            let known = try await timed("anna")
            let unknown = try await timed("nobody-at-all")
            #expect(unknown > known / 3, "unknown \(unknown) vs known \(known)")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// With a history of admissions and (anonymous) exits, a ticket's estimate comes from the visits the store
    /// really has — 10 minutes here, where its manager configured 20 — and an app ticket keeps what it was told.
    @Test(arguments: Backend.available) func theWaitEstimateLearnsFromTheStoresHistory(_ backend: Backend) async throws
    {
        let server = try await ServerRig(backend: backend)
        do {
            let store = try await server.registerStore(["capacity": 1])
            let credential = try await server.enroll("k1", store: store)
            let now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
            // 300 visits of 10 minutes, one every quarter of an hour, over the last days.
            var events: [StoreEvent] = []
            for i in 0..<300 {
                let time = now - .seconds(Int64(300 - i) * 900 + 3600)
                let ticket = Ticket(
                    id: .v7(at: time),
                    store: store,
                    kind: .paper,
                    code: TicketCode(prefix: "A", number: i + 1),
                    issuedAt: time,
                    issuer: "k1"
                )
                for (offset, body) in [
                    (0, StoreEvent.Body.ticketIssued(ticket)), (1, .ticketTaken(ticket.id)),
                    (2, .ticketAdmitted(ticket.id, door: "k1")), (602, .customerExited),
                ] {
                    let at = time + .seconds(offset)
                    events.append(StoreEvent(id: .v7(at: at), store: store, device: "k1", time: at, body: body))
                }
            }
            let path = "/v1/stores/\(store.uuidString)/events"
            for batch in stride(from: 0, to: events.count, by: 1000) {
                let part = Array(events[batch..<min(batch + 1000, events.count)])
                let answer = try await server.call(
                    "POST",
                    path,
                    token: credential,
                    raw: try JSONEncoder().encode(["events": part])
                )
                #expect(answer.status == 200)
            }
            let tickets = "/v1/stores/\(store.uuidString)/tickets"
            _ = try await server.call("POST", tickets, token: nil)
            var second = try await server.call("POST", tickets, token: nil, headers: ["X-Forwarded-For": "10.0.0.9"])
            let before = try #require(second.body["estimatedWaitSeconds"] as? Int)
            #expect(before >= 15 * 60, "not learnt yet: the configured 20-minute visit (\(before) s)")
            try await server.app.logs.refreshModels(at: server.app.logs.clock.now())
            let model = try #require(server.app.logs.store(store)?.model)
            #expect((10...12.5).contains(model.visit.meanMinutes), "learnt visit \(model.visit.meanMinutes) min")
            let id = try #require((second.body["ticket"] as? [String: Any])?["id"] as? String)
            second = try await server.call("GET", "/v1/tickets/\(id)", token: nil)
            let after = try #require(second.body["estimatedWaitSeconds"] as? Int)
            #expect(after < before, "\(after) s after learning, \(before) s before")
            let low = try #require(second.body["estimatedWaitLowSeconds"] as? Int)
            let high = try #require(second.body["estimatedWaitHighSeconds"] as? Int)
            #expect(low <= after && after <= high && low < high)
            // What the app ticket was told is in its event.
            let log = try await server.app.database.events(store: store, after: 0, limit: .max)
            let told = log.compactMap { event -> WaitRange? in
                if case .ticketIssued(let t, let told) = event.body, t.id.uuidString == id.uppercased() { return told }
                return nil
            }
            #expect(told.first.map { Int($0.point.components.seconds) } == before)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
