import AsyncHTTPClient
import Foundation
import KioskCore
import SyncWire
import Testing

@testable import CLupServer
@testable import Rigs

/// The fleet view of a chain whose kiosks are not all on one version: each kiosk's version, protocol, last
/// contact, clock offset, outbox, quarantine and newer events, and the problems that follow, in a store's
/// list, in every store's list for the system manager (`GET /v1/devices`, filtered by version and problem),
/// on the console's fleet page and in the metrics the alert rules read; and the store's languages, which its
/// kiosks follow, set in the console.
@Suite(.serialized) struct FleetViewTests {
    @Test func theSystemManagerSeesEveryStoresKiosksByVersionAndProblem() async throws {
        let server = try await ServerRig(oldestKioskProtocol: 2)
        try await AttackRoundTwoTests.run(server) { client in
            let north = try await server.registerStore(["name": "North Market"], manager: "north")
            let south = try await server.registerStore(["name": "South Market"], manager: "south")
            let today = try await server.enroll("today", store: north)
            let old = try await server.enroll("old-door", store: south, role: .door)
            let drifting = try await server.enroll("drifting", store: south)
            let speaking = [SyncProtocol.header: "\(SyncProtocol.current)"]
            let now = server.app.logs.clock.now().milliseconds
            func report(_ credential: String, _ health: [String: Any]) async throws -> Int {
                try await server.call(
                    "PUT",
                    "/v1/devices/self/health",
                    token: credential,
                    json: health,
                    headers: speaking
                ).status
            }
            // Today's kioskd, its clock right; one a minute and a half slow with refused events set aside and
            // a newer server's events in its log; one from before the protocol header, refused (426).
            #expect(try await report(today, ["version": "0.1.340", "pendingEvents": 3, "clock": now + 400]) == 204)
            let slow: [String: Any] = [
                "version": "0.1.299", "pendingEvents": 0, "quarantined": 2, "newerEvents": 5, "clock": now - 90_000,
                "light": "unavailable", "voice": "ready",
            ]
            #expect(try await report(drifting, slow) == 204)
            let refused = try await server.call("GET", "/v1/stores/\(south.uuidString)/keys", token: old)
            #expect(refused.status == 426)

            let all = try await server.call("GET", "/v1/devices")
            #expect(all.status == 200, "\(all.body)")
            let kiosks = try #require(all.body["devices"] as? [[String: Any]])
            let byID = Dictionary(uniqueKeysWithValues: kiosks.map { ($0["device"] as? String ?? "", $0) })
            #expect(Set(byID.keys) == ["today", "old-door", "drifting"], "every store's kiosks: \(byID.keys)")
            #expect((byID["today"]?["store"] as? String)?.lowercased() == north.uuidString.lowercased())
            #expect((byID["old-door"]?["store"] as? String)?.lowercased() == south.uuidString.lowercased())
            #expect(byID["today"]?["problems"] as? [String] == [], "\(byID["today"] ?? [:])")
            #expect(byID["today"]?["syncProtocol"] as? Int == SyncProtocol.current)
            #expect(abs(byID["today"]?["clockOffsetSeconds"] as? Int ?? 99) <= 1)
            // Refused as too old, yet seen: not silent, and its protocol shown.
            #expect(byID["old-door"]?["problems"] as? [String] == ["too_old"], "\(byID["old-door"] ?? [:])")
            #expect(byID["old-door"]?["syncProtocol"] as? Int == 1 && byID["old-door"]?["lastContact"] != nil)
            #expect(
                byID["drifting"]?["problems"] as? [String] == ["clock", "quarantine", "signals", "update"],
                "\(byID["drifting"] ?? [:])"
            )
            #expect((-91...(-89)).contains(byID["drifting"]?["clockOffsetSeconds"] as? Int ?? 0))

            for (query, expected) in [
                ("problem=too_old", ["old-door"]), ("problem=clock", ["drifting"]), ("version=0.1.299", ["drifting"]),
                ("version=0.1.340&problem=clock", []), ("problem=silent", []),
            ] {
                let answer = try await server.call("GET", "/v1/devices?\(query)")
                let shown = (answer.body["devices"] as? [[String: Any]])?.compactMap { $0["device"] as? String }
                #expect(answer.status == 200 && shown == expected, "\(query): \(answer.status) \(shown ?? [])")
            }
            for (query, field) in [("problem=on_fire", "problem"), ("version=%20", "version"), ("version=", "version")]
            {
                let answer = try await server.call("GET", "/v1/devices?\(query)")
                #expect(answer.status == 400 && answer.body["field"] as? String == field, "\(query): \(answer.body)")
            }
            // A store's manager sees only their store's kiosks, never the fleet.
            let login = try await server.call(
                "POST",
                "/v1/login",
                token: nil,
                json: ["username": "south", "password": "correct horse battery"]
            )
            let session = try #require(login.body["token"] as? String, "\(login.body)")
            #expect(try await server.call("GET", "/v1/devices", token: session).status == 401)
            let own = try await server.call("GET", "/v1/stores/\(south.uuidString)/devices", token: session)
            #expect((own.body["devices"] as? [[String: Any]])?.count == 2)
            #expect(
                try await server.call("GET", "/v1/stores/\(north.uuidString)/devices", token: session).status == 403
            )

            // The metrics the alert rules read.
            let metrics = try await AttackRoundTwoTests.get(
                client,
                server.url + "/metrics",
                headers: ["Authorization": "Bearer \(ServerRig.adminToken)"]
            ).body
            for (name, device, value) in [
                ("clup_kiosk_too_old", "old-door", 1.0), ("clup_kiosk_too_old", "today", 0),
                ("clup_kiosk_clock_offset_seconds", "drifting", -90), ("clup_kiosk_quarantined_events", "drifting", 2),
                ("clup_kiosk_newer_events", "drifting", 5),
            ] {
                let line = metrics.split(separator: "\n").first {
                    $0.hasPrefix(name + "{") && $0.contains(#"device="\#(device)""#)
                }
                let number = line?.split(separator: " ").last.flatMap { Double($0) }
                #expect(number.map { abs($0 - value) <= 1 } == true, "\(name) \(device): \(line ?? "absent")")
            }

            // The console's fleet page, for the system manager only, filtered as the API is.
            let admin = try await Self.session(client, server, "token=\(ServerRig.adminToken)")
            let page = try await AttackRoundTwoTests.get(
                client,
                server.url + "/console/fleet?problem=clock",
                cookie: admin
            )
            #expect(page.status == 200)
            #expect(page.body.contains("id=\"fleet-\(south.uuidString.lowercased())-drifting\""), "\(page.body)")
            #expect(!page.body.contains("-today\"") && !page.body.contains("-old-door\""))
            #expect(page.body.contains("90 s behind") && page.body.contains("events set aside: 2"))
            let italian = try await AttackRoundTwoTests.get(
                client,
                server.url + "/console/fleet?problem=too_old",
                cookie: admin,
                headers: ["Accept-Language": "it"]
            )
            #expect(italian.body.contains("rifiutato perché vecchio: aggiornare kioskd"), "\(italian.body)")
            // The store's own page lists its kiosks with their role and what they need.
            let store = try await AttackRoundTwoTests.get(
                client,
                server.url + "/console/stores/\(south.uuidString.lowercased())",
                cookie: admin
            )
            #expect(store.body.contains("<tr id=\"kiosk-old-door\"><td>old-door</td><td>Door</td>"), "\(store.body)")
            #expect(store.body.contains("refused as too old: update kioskd"))
            let bad = try await AttackRoundTwoTests.get(client, server.url + "/console/fleet?problem=x", cookie: admin)
            #expect(bad.status == 400 && bad.body.contains("problem"))
            let manager = try await Self.session(client, server, "username=south&password=correct+horse+battery")
            let forbidden = try await AttackRoundTwoTests.get(client, server.url + "/console/fleet", cookie: manager)
            #expect(forbidden.status == 403)
        }
        await server.stop()
    }

    /// The store's languages from the console's settings form: offered in each order, the choice saved as the
    /// API's `languages`, and shown selected again; a language the form never offered is refused by name.
    @Test func aManagerSetsTheStoresLanguagesInTheConsole() async throws {
        let server = try await ServerRig()
        try await AttackRoundTwoTests.run(server) { client in
            let store = try await server.registerStore(manager: "giulia")
            let session = try await Self.session(client, server, "username=giulia&password=correct+horse+battery")
            let page = server.url + "/console/stores/\(store.uuidString.lowercased())"
            let before = try await AttackRoundTwoTests.get(client, page, cookie: session).body
            for choice in ["en", "it", "en,it", "it,en"] {
                #expect(before.contains("<option value=\"\(choice)\""), "\(choice)")
            }
            #expect(before.contains("<option value=\"en\" selected>English</option>"))
            let csrf = try #require(before.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1)
            func save(_ languages: String) async throws -> (status: Int, location: String) {
                let days = (0..<7).map { "open\($0)=00%3A00&close\($0)=00%3A00" }.joined(separator: "&")
                let answer = try await AttackRoundTwoTests.post(
                    client,
                    page + "/settings",
                    form: "csrf=\(csrf)&capacity=20&averageVisitMinutes=20&slotMinutes=30&slotSize=5&"
                        + "ticketsBeforeOpening=&languages=\(languages)&\(days)",
                    headers: ["Cookie": session]
                )
                return (answer.status, answer.headers["Location"].first ?? "")
            }
            let saved = try await save("it%2Cen")
            #expect(saved.status == 303 && saved.location.contains("saved=1"), "\(saved)")
            #expect(server.app.logs.store(store)?.record.profile.languages == ["it", "en"])
            let after = try await AttackRoundTwoTests.get(client, page, cookie: session).body
            #expect(after.contains("<option value=\"it,en\" selected>Italiano + English</option>"))
            let refused = try await save("fr")
            #expect(refused.location.contains("problem="), "\(refused)")
            #expect(server.app.logs.store(store)?.record.profile.languages == ["it", "en"], "nothing changed")
        }
        await server.stop()
    }

    /// The problems of one kiosk, judged at a given time for a server serving protocols 2 and up.
    @Test func eachProblemIsJudgedFromTheKiosksLastContactAndReport() {
        let now = Timestamp(milliseconds: 1_800_000_000_000)
        func problems(_ change: (inout EnrolledDevice) -> Void) -> [KioskProblem] {
            var device = EnrolledDevice(store: StoreID(), device: "k", role: .both, enrolledAt: now)
            device.lastContact = now - .seconds(5)
            device.syncProtocol = 2
            change(&device)
            return KioskProblem.of(device, at: now, oldest: 2, current: 2)
        }
        func reporting(_ health: KioskHealth) -> [KioskProblem] { problems { $0.health = health } }
        #expect(problems { _ in } == [])
        #expect(problems { $0.lastContact = nil } == [], "not heard since the server started: unknown, not silent")
        #expect(problems { $0.lastContact = now - .seconds(61) } == [.silent])
        #expect(problems { $0.lastContact = now - .seconds(60) } == [])
        #expect(problems { $0.syncProtocol = 1 } == [.tooOld], "too old, not also 'update'")
        #expect(problems { $0.clockOffsetSeconds = 61 } == [.clock])
        #expect(problems { $0.clockOffsetSeconds = -61 } == [.clock])
        #expect(problems { $0.clockOffsetSeconds = 60 } == [])
        #expect(
            KioskProblem.of(
                .init(store: StoreID(), device: "k", role: .both, enrolledAt: now),
                at: now,
                oldest: 1,
                current: 2
            ) == []
        )
        #expect(reporting(.init(version: "1", quarantined: 1)) == [.quarantine])
        #expect(reporting(.init(version: "1", printer: "paper_out")) == [.paper])
        #expect(reporting(.init(version: "1", printer: "paper_near_end")) == [.paper])
        #expect(reporting(.init(version: "1", ticketsLeft: 10)) == [.paper])
        #expect(reporting(.init(version: "1", printer: "cover_open")) == [.printer])
        #expect(reporting(.init(version: "1", printer: "ready", door: "disconnected")) == [.door])
        #expect(reporting(.init(version: "1", door: "clock_wrong")) == [.door])
        #expect(reporting(.init(version: "1", light: "unavailable")) == [.signals])
        #expect(reporting(.init(version: "1", voice: "unavailable")) == [.signals])
        #expect(reporting(.init(version: "1", light: "ready", voice: "speaking")) == [])
        #expect(reporting(.init(version: "1", newerEvents: 1)) == [.update])
        #expect(reporting(.init(version: "1", pendingEvents: 101)) == [.backlog])
        #expect(reporting(.init(version: "1", pendingEvents: 100)) == [])
        #expect(
            problems {
                $0.syncProtocol = 1
                $0.lastContact = now - .seconds(120)
                $0.health = .init(version: "1", printer: "fault", pendingEvents: 500, newerEvents: 3)
            } == [.tooOld, .silent, .printer, .backlog]
        )
    }

    /// A console session's cookie (`clup_console=…`) from the login form `form`.
    static func session(_ client: HTTPClient, _ server: ServerRig, _ form: String) async throws -> String {
        let login = try await AttackRoundTwoTests.post(client, server.url + "/console/login", form: form)
        let cookie = try #require(login.headers["Set-Cookie"].first { $0.hasPrefix("clup_console=") })
        return String(cookie.prefix { $0 != ";" })
    }
}
