import Foundation
import KioskCore
import ServiceSupport
import Testing

@testable import CLupServer
@testable import Rigs

/// A ticket costs its client a proof of work (issue "clup-server under attack, second round", point 1):
/// requests that did not pay are refused before any allowance is counted, so a flood from many addresses
/// neither takes tickets nor spends the store's budget; a store under pressure asks for more.
@Suite(.serialized) struct TicketWorkTests {
    /// Before: a thousand addresses without a token took the store's burst (20), and the next shopper got 429
    /// "this store is taking many tickets". After: the flood's requests are refused (428) without counting,
    /// and the shopper who pays takes a ticket at once. A forged, another store's, spent or expired proof
    /// counts for nothing either.
    @Test func aFloodThatDoesNotPayTakesNothingAndSpendsNothing() async throws {
        let offset = WallClock.Offset()
        let server = try await ServerRig(
            clock: .shifted(by: offset),
            limits: PublicLimits(),
            trustedProxies: [CIDR("127.0.0.1")!]
        )
        try await AttackRoundTwoTests.run(server) { _ in
            let store = try await server.registerStore(["capacity": 5])
            let other = try await server.registerStore(["capacity": 5, "name": "Other Market"], manager: "other")
            let tickets = "/v1/stores/\(store.uuidString)/tickets"
            // One challenge, solved once, replayed by everyone; the rest send nothing or garbage.
            let solved = try #require(try await server.work(for: tickets))
            let statuses = try await AttackTests.burst(2_000) { i in
                let address = ["X-Forwarded-For": "198.18.\(i % 1000 / 250).\(i % 250 + 1)"]
                let work: String? =
                    switch i % 4 {
                    case 0: nil
                    case 1: solved.dropLast() + "x"
                    case 2: String(solved.prefix(while: { $0 != "." })) + ".99.AAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.1"
                    default: solved
                    }
                let answer = try await server.call(
                    "POST",
                    tickets,
                    token: nil,
                    headers: work.map { address.merging(["Clup-Work": $0]) { a, _ in a } } ?? address,
                    paying: false
                )
                return answer.status
            }
            // The replayed proof took one ticket (its first use); nothing else got through or was counted.
            #expect(
                statuses.count(where: { $0 == 201 }) == 1,
                "\(Dictionary(grouping: statuses) { $0 }.mapValues(\.count))"
            )
            #expect(statuses.allSatisfy { $0 == 201 || $0 == 428 })
            #expect(server.queue(store)?.waiting.count == 1)
            // The shopper who pays: at once, and again from the same address (its allowance is whole).
            for shopper in 0..<2 {
                let answer = try await server.call(
                    "POST",
                    tickets,
                    token: nil,
                    headers: ["X-Forwarded-For": "192.0.2.9"]
                )
                #expect(answer.status == 201, "shopper \(shopper): \(answer.body)")
            }

            // What each refusal says.
            func refusal(_ work: String?, at path: String = tickets) async throws -> String {
                let answer = try await server.call(
                    "POST",
                    path,
                    token: nil,
                    headers: work.map { ["Clup-Work": $0, "X-Forwarded-For": "192.0.2.10"] } ?? [:],
                    paying: false
                )
                #expect(answer.status == 428 && answer.body["reason"] as? String == "work", "\(answer.body)")
                return answer.body["error"] as? String ?? ""
            }
            #expect(try await refusal(nil).contains("GET /v1/stores/{store}/work"))
            #expect(try await refusal(solved).contains("already used"))
            let fresh = try #require(try await server.work(for: tickets))
            #expect(
                try await refusal(fresh, at: "/v1/stores/\(other.uuidString)/tickets").contains("not this server's")
            )
            #expect(
                try await refusal(fresh.replacingOccurrences(of: ".14.", with: ".0.")).contains("not this server's")
            )
            offset.advance(by: .seconds(121))
            #expect(try await refusal(fresh).contains("expired"))
        }
    }

    /// Each doubling of the paid requests a store took in the last minute beyond its calm rate adds a bit;
    /// another store is not affected; a minute's quiet lowers it again. A proof two bits below what the store
    /// asks now is refused (one below still counts: it was being solved while the store got busier).
    @Test func aStoreUnderPressureAsksForMoreWork() async throws {
        let offset = WallClock.Offset()
        var limits = ServerRig.crowdLimits
        var rule = WorkRule(baseBits: 4, maxBits: 7)
        rule.calmPerMinute = 2
        limits.work = rule
        let server = try await ServerRig(clock: .shifted(by: offset), limits: limits)
        try await AttackRoundTwoTests.run(server) { _ in
            let store = try await server.registerStore(["capacity": 50])
            let other = try await server.registerStore(["capacity": 50, "name": "Other Market"], manager: "other")
            func bits(_ store: UUID) async throws -> Int {
                try await server.call("GET", "/v1/stores/\(store.uuidString)/work", token: nil).body["bits"] as? Int
                    ?? -1
            }
            #expect(try await bits(store) == 4)
            let easy = try await server.call("GET", "/v1/stores/\(store.uuidString)/work", token: nil).body
            let tickets = "/v1/stores/\(store.uuidString)/tickets"
            var asked: [Int] = []
            for _ in 0..<16 {
                #expect(try await server.call("POST", tickets, token: nil).status == 201)
                asked.append(try await bits(store))
            }
            // 2 a minute is calm: 3–4 paid ask 5 bits, 5–8 ask 6, then 7 (the most).
            #expect(asked.prefix(9) == [4, 4, 5, 5, 6, 6, 6, 6, 7], "\(asked)")
            #expect(asked.last == 7)
            #expect(try await bits(other) == 4)
            let stale = WorkProof.solve(challenge: try #require(easy["challenge"] as? String), bits: 4)
            let refused = try await server.call(
                "POST",
                tickets,
                token: nil,
                headers: ["Clup-Work": stale],
                paying: false
            )
            #expect(refused.status == 428 && (refused.body["error"] as? String)?.contains("more work") == true)
            offset.advance(by: .seconds(300))
            #expect(try await bits(store) == 4)
        }
    }

    /// The arithmetic a client does: the first nonce whose hash begins with the bits asked, as Python's
    /// hashlib finds it too.
    @Test func aSolvedChallengeHasTheBitsAsked() {
        for bits in [0, 1, 8, 12] {
            let proof = WorkProof.solve(challenge: "1764000000.\(bits).AAAAAAAAAAA.AAAAAAAAAAAAAAAA", bits: bits)
            #expect(WorkProof.zeroBits(of: Data(proof.utf8)) >= bits)
            #expect(proof.hasPrefix("1764000000.\(bits).AAAAAAAAAAA.AAAAAAAAAAAAAAAA."))
        }
        // SHA-256("hello.4048") = 0001ef66…: 15 zero bits, and no smaller nonce has 12.
        #expect(WorkProof.solve(challenge: "hello", bits: 12) == "hello.4048")
        #expect(WorkProof.zeroBits(of: Data("hello.4048".utf8)) == 15)
    }
}
