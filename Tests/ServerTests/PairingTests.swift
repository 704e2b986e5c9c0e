import AsyncHTTPClient
import Foundation
import KioskCore
import ServiceSupport
import SyncWire
import Testing

@testable import CLupServer
@testable import Rigs

/// Pairing a kiosk by the code it prints (RFC 8628): a box asks for a code, its manager types it in the console
/// and picks the store and role, the box collects its credential once. Attacked: a code guessed, reused, taken to
/// another store, left to expire, a flood of pairing requests; a paired box revoked and paired again.
@Suite(.serialized) struct PairingTests {
    /// A pairing's rules, pure: polls, slow-down, single use, expiry, refusal; the codes people type.
    @Test func aPairingKeepsItsRules() {
        let now = Timestamp(milliseconds: 1_800_000_000_000)
        let asked = Pairing.new(deviceCode: "secret", device: "entrance", role: .door, address: "192.0.2.1", at: now)
        #expect(asked.userCode.count == 8 && asked.state == .pending && asked.expiresAt == now + .seconds(600))
        #expect(asked.deviceCodeHash == Secrets.hash("secret"), "only the device code's hash is kept")
        for letter in "AEIOU01" { #expect(!Pairing.alphabet.contains(letter), "no vowel, no 0/O or 1/I: \(letter)") }

        let (first, pending) = asked.polled(at: now + .seconds(5))
        #expect(pending == .refuse(.authorizationPending) && first.lastPollAt == now + .seconds(5))
        let (hurried, slow) = first.polled(at: now + .seconds(6))
        #expect(slow == .refuse(.slowDown) && hurried.interval == 10, "too soon: the interval grows by 5 s")
        #expect(hurried.polled(at: now + .seconds(12)).1 == .refuse(.slowDown), "10 s now")
        #expect(hurried.polled(at: now + .seconds(17)).1 == .refuse(.authorizationPending))

        let approved = first.decided(store: StoreID(), role: .printer, by: "giulia")
        let (delivered, answer) = approved.polled(at: now + .seconds(20))
        guard case .deliver(_, let role) = answer else {
            Issue.record("approved: \(answer)")
            return
        }
        #expect(role == .printer && delivered.state == .delivered)
        #expect(delivered.polled(at: now + .seconds(40)).1 == .refuse(.expiredToken), "delivered once, never again")
        #expect(approved.polled(at: now + .seconds(600)).1 == .refuse(.expiredToken), "an approval nobody collected")
        #expect(!asked.awaitsDecision(at: now + .seconds(600)) && asked.awaitsDecision(at: now + .seconds(599)))
        let denied = first.decided(store: nil, role: .both, by: "giulia")
        #expect(denied.polled(at: now + .seconds(20)).1 == .refuse(.accessDenied) && denied.role == nil)

        #expect(Pairing.normalized("bcdf-ghjk") == "BCDFGHJK" && Pairing.normalized(" BCDF GHJK ") == "BCDFGHJK")
        #expect(Pairing.display("BCDFGHJK") == "BCDF-GHJK")
        for wrong in [
            "B0DF-GHJK", "ABCD-FGHJ", "BCDF-GHJ", "BCDF-GHJKL", "BCDF–GHJK", String(repeating: "B", count: 1 << 20),
        ] {
            #expect(Pairing.normalized(wrong) == nil, "\(wrong.prefix(12))")
        }
    }

    /// A box's request for a code, and a poll of it (the status, RFC 8628's `reason`, and the answer).
    static func ask(
        _ server: ServerRig,
        device: String = "entrance-2",
        role: String? = "door",
        from address: String? = nil
    )
        async throws -> (status: Int, body: [String: Any])
    {
        var json: [String: Any] = ["device": device]
        if let role { json["role"] = role }
        return try await server.call(
            "POST",
            "/v1/pairing",
            token: nil,
            json: json,
            headers: address.map { ["X-Forwarded-For": $0] } ?? [:]
        )
    }

    static func poll(_ server: ServerRig, _ deviceCode: String) async throws -> (status: Int, body: [String: Any]) {
        try await server.call("POST", "/v1/pairing/token", token: nil, json: ["deviceCode": deviceCode])
    }

    @Test func aManagerPairsAKioskByItsCodeOnceAndOnlyIntoTheirStore() async throws {
        let offset = WallClock.Offset()
        let server = try await ServerRig(clock: .shifted(by: offset))
        try await AttackRoundTwoTests.run(server) { client in
            let store = try await server.registerStore(manager: "giulia")
            let other = try await server.registerStore(["name": "Another Market"], manager: "marco")
            let asked = try await Self.ask(server)
            #expect(asked.status == 200, "\(asked)")
            let code = try #require(asked.body["userCode"] as? String)
            let deviceCode = try #require(asked.body["deviceCode"] as? String)
            #expect(code.wholeMatch(of: /[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}/) != nil, "\(code)")
            #expect(asked.body["expiresIn"] as? Int == 600 && asked.body["interval"] as? Int == 5)
            let complete = try #require(asked.body["verificationURIComplete"] as? String)
            #expect(complete == server.url + "/console/pair?code=" + code.replacingOccurrences(of: "-", with: ""))

            offset.advance(by: .seconds(5))
            let waiting = try await Self.poll(server, deviceCode)
            #expect(waiting.status == 400 && waiting.body["reason"] as? String == "authorization_pending", "\(waiting)")
            let hurried = try await Self.poll(server, deviceCode)
            #expect(hurried.body["reason"] as? String == "slow_down", "polled again at once: \(hurried)")

            // Not logged in: the QR's page asks to log in first and comes back with the code.
            let anonymous = try await AttackRoundTwoTests.get(client, complete)
            #expect(anonymous.status == 303 && (anonymous.headers["Location"].first ?? "").contains("console%2Fpair"))

            let giulia = try await ConsoleRig.login(client, server, as: "giulia")
            let shown = try await giulia.get("/console/pair?code=" + code.lowercased())
            #expect(shown.status == 200 && shown.body.contains("entrance-2"), "\(shown.body.prefix(400))")
            #expect(
                shown.body.contains(store.uuidString.lowercased())
                    && !shown.body.contains(other.uuidString.lowercased()),
                "a manager picks only their own store"
            )
            #expect(shown.body.contains("<option value=\"door\" selected>"), "the role the box asked for, preselected")
            // Taken to another store: refused, and the code still waits.
            let elsewhere = try await giulia.pair(code, store: other)
            #expect(elsewhere.status == 403, "\(elsewhere.status)")
            let paired = try await giulia.pair(code, store: store, role: "door")
            #expect(paired.status == 200 && paired.body.contains("entrance-2"), "\(paired.body.prefix(400))")

            offset.advance(by: .seconds(11))
            let collected = try await Self.poll(server, deviceCode)
            #expect(collected.status == 200, "\(collected)")
            let credential = try #require(collected.body["credential"] as? String)
            #expect(
                collected.body["store"] as? String == store.uuidString && collected.body["role"] as? String == "door"
            )
            let keys = collected.body["keys"] as? [[String: Any]] ?? []
            #expect(keys.contains { $0["device"] as? String == ServerIssue.device }, "the store's key ring: \(keys)")
            #expect(
                try await server.call("GET", "/v1/stores/\(store.uuidString)/keys", token: credential).status == 200
            )
            #expect(
                try await server.call("GET", "/v1/stores/\(other.uuidString)/keys", token: credential).status == 403
            )

            // Single use: the next poll, and the code typed again, find nothing.
            offset.advance(by: .seconds(20))
            let again = try await Self.poll(server, deviceCode)
            #expect(again.status == 400 && again.body["reason"] as? String == "expired_token", "\(again)")
            #expect(try await giulia.get("/console/pair?code=" + code).status == 404)

            // Revoked, then paired again under the same name with a new code.
            let devices = try await server.call("GET", "/v1/stores/\(store.uuidString)/devices")
            #expect((devices.body["devices"] as? [[String: Any]])?.first?["role"] as? String == "door", "\(devices)")
            #expect(try await server.call("DELETE", "/v1/stores/\(store.uuidString)/devices/entrance-2").status == 204)
            #expect(
                try await server.call("GET", "/v1/stores/\(store.uuidString)/keys", token: credential).status == 401
            )
            let second = try await Self.ask(server)
            let secondCode = try #require(second.body["userCode"] as? String)
            #expect(try await giulia.pair(secondCode, store: store).status == 200)
            offset.advance(by: .seconds(6))
            let repaired = try await Self.poll(server, try #require(second.body["deviceCode"] as? String))
            let newCredential = try #require(repaired.body["credential"] as? String, "\(repaired)")
            #expect(newCredential != credential)
            #expect(
                try await server.call("GET", "/v1/stores/\(store.uuidString)/keys", token: newCredential).status == 200
            )

            // A refusal reaches the box.
            let refusedAsk = try await Self.ask(server, device: "intruder")
            let refusedCode = try #require(refusedAsk.body["userCode"] as? String)
            #expect(try await giulia.pair(refusedCode, store: store, deny: true).status == 200)
            offset.advance(by: .seconds(6))
            let refused = try await Self.poll(server, try #require(refusedAsk.body["deviceCode"] as? String))
            #expect(refused.body["reason"] as? String == "access_denied", "\(refused)")
        }
        await server.stop()
    }

    /// A door with no printer: the console shows a QR, read back here as a scanner would; its code collects the
    /// credential once, for the store and role the manager chose.
    @Test func theConsoleOffersADoorAQRToScan() async throws {
        let server = try await ServerRig()
        try await AttackRoundTwoTests.run(server) { client in
            let store = try await server.registerStore(manager: "giulia")
            let other = try await server.registerStore(["name": "Another Market"], manager: "marco")
            let giulia = try await ConsoleRig.login(client, server, as: "giulia")
            func offer(_ device: String, _ store: StoreID) async throws -> (status: Int, body: String) {
                let answer = try await giulia.submit(
                    "device=\(device)&store=\(store.uuidString.lowercased())&role=door",
                    to: "/console/pair/offer",
                    from: "/console/pair"
                )
                return (answer.status, answer.body)
            }
            #expect(try await offer("door-1", other).status == 403, "another store")
            #expect(try await offer("%3Cdoor%3E", store).status == 400, "not a host name")
            let shown = try await offer("door-1", store)
            #expect(shown.status == 200 && shown.body.contains("<svg"), "\(shown.body.prefix(300))")
            let scanned = try SVGQR.decode(shown.body, in: server.directory)
            let deviceCode = try #require(PairingOffer.deviceCode(in: scanned), "\(scanned)")
            #expect(!shown.body.contains(deviceCode), "the code is only in the picture")
            let paired = try await Self.poll(server, deviceCode)
            #expect(paired.status == 200 && paired.body["device"] as? String == "door-1", "\(paired)")
            #expect(paired.body["store"] as? String == store.uuidString && paired.body["role"] as? String == "door")
            let again = try await Self.poll(server, deviceCode)
            #expect(again.body["reason"] as? String == "expired_token", "once: \(again)")
        }
        await server.stop()
    }

    @Test func codesResistGuessingFloodsAndTime() async throws {
        let offset = WallClock.Offset()
        let server = try await ServerRig(clock: .shifted(by: offset), trustedProxies: [CIDR("127.0.0.1/32")!])
        try await AttackRoundTwoTests.run(server) { client in
            _ = try await server.registerStore(manager: "giulia")
            let giulia = try await ConsoleRig.login(client, server, as: "giulia")
            let asked = try await Self.ask(server, from: "198.51.100.7")
            let code = try #require(asked.body["userCode"] as? String)

            // Guessing: wrong codes are refused, then the manager waits — and while waiting, even the right code
            // is refused before any lookup (tried at once after a refused guess, inside its wait).
            var statuses: [Int] = []
            var rightWhileWaiting: Int?
            for guess in "CDFGHJKLMNPQ" where rightWhileWaiting == nil {
                statuses.append(try await giulia.get("/console/pair?code=BBBB-BBB\(guess)").status)
                if statuses.last == 429 {
                    rightWhileWaiting = try await giulia.get("/console/pair?code=" + code).status
                }
            }
            #expect(statuses.prefix(3).allSatisfy { $0 == 404 } && statuses.contains(429), "\(statuses)")
            #expect(rightWhileWaiting == 429, "a guesser's wait holds for the right code too")
            offset.advance(by: .seconds(301))
            #expect(try await giulia.get("/console/pair?code=" + code).status == 200, "after the wait")

            // Expiry: ten minutes after it was given, the code is worth nothing on either side.
            offset.advance(by: .seconds(600))
            #expect(try await giulia.get("/console/pair?code=" + code).status == 404)
            let expired = try await Self.poll(server, try #require(asked.body["deviceCode"] as? String))
            #expect(expired.body["reason"] as? String == "expired_token", "\(expired)")

            // Bad requests: a name that is not a host name, a giant body, a made-up device code.
            let badName = try await Self.ask(server, device: "<script>", from: "198.51.100.8")
            #expect(badName.status == 400 && badName.body["field"] as? String == "device", "\(badName)")
            let huge = try await server.call(
                "POST",
                "/v1/pairing",
                token: nil,
                raw: Data(("{\"device\":\"" + String(repeating: "a", count: 1 << 20) + "\"}").utf8)
            )
            #expect(huge.status == 413, "\(huge.status)")
            let madeUp = try await Self.poll(server, String(repeating: "x", count: 43))
            #expect(madeUp.status == 400 && madeUp.body["reason"] as? String == "expired_token")

            // A flood from one address: five codes at once, then one a minute.
            var flood: [Int] = []
            for _ in 0..<7 { flood.append(try await Self.ask(server, from: "203.0.113.9").status) }
            #expect(flood.prefix(5).allSatisfy { $0 == 200 } && flood.suffix(2).allSatisfy { $0 == 429 }, "\(flood)")
            // From very many addresses: the live codes are bounded, then 503 until they expire.
            var live = 5  // the flood's (the first code expired)
            var refused = 0
            for n in 0..<(KioskPairing.maxLive / 5 + 1) where refused == 0 {
                for _ in 0..<5 {
                    let status = try await Self.ask(server, from: "10.\(n / 250).\(n % 250).1").status
                    if status == 200 {
                        live += 1
                    } else if status == 503 {
                        refused += 1
                    } else {
                        Issue.record("status \(status)")
                    }
                }
            }
            #expect(live == KioskPairing.maxLive && refused > 0, "live \(live), refused \(refused)")
            offset.advance(by: .seconds(601))
            #expect(try await Self.ask(server, from: "10.200.0.1").status == 200, "expired codes make room")
        }
        await server.stop()
    }
}
