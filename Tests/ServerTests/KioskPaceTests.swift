import CLupServer
import Foundation
import Testing

@testable import Rigs

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The request pace counts a confirmed kiosk apart from the address it shares: a phone flooding from a store's
/// guest Wi-Fi (the kiosks' public address too) waits its turn, while the kiosks keep syncing at once; a forged
/// credential from there waits with the flood.
@Suite(.serialized) struct KioskPaceTests {
    @Test func aFloodFromTheKiosksAddressDoesNotSlowTheKiosks() async throws {
        var connections = ConnectionLimits()
        connections.requestsPerAddress = RateLimiter.Rule(burst: 20, interval: .milliseconds(10))
        // The test's loopback client is the load balancer: X-Forwarded-For names the store's address.
        let server = try await ServerRig(trustedProxies: [CIDR("127.0.0.1")!], connections: connections)
        let shared = ["X-Forwarded-For": "198.51.100.9"]
        do {
            let store = try await server.registerStore(["capacity": 5], manager: "owner")
            let credential = try await server.enroll("k1", store: store)
            let pull = "/v1/stores/\(store.uuidString)/events?after=0&wait=0"
            // The kiosk's own connection, as a kiosk has; the flood on 64 connections of its own.
            let own = URLSession(configuration: .ephemeral)
            let wide = URLSessionConfiguration.ephemeral
            wide.httpMaximumConnectionsPerHost = 64
            let phone = URLSession(configuration: wide)
            @Sendable func get(_ path: String, token: String?, on session: URLSession) async throws -> Int {
                var request = URLRequest(url: URL(string: server.url + path)!)
                if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
                for (name, value) in shared { request.setValue(value, forHTTPHeaderField: name) }
                let (_, response) = try await session.data(for: request)
                return (response as? HTTPURLResponse)?.statusCode ?? 0
            }
            // The kiosk has synced before the flood: the device table confirmed its credential.
            #expect(try await server.call("GET", pull, token: credential, headers: shared).status == 200)

            let started = ContinuousClock.now
            async let flood = AttackTests.burst(400, width: 64) { _ in
                try await get("/healthz", token: nil, on: phone)
            }
            // The address's burst is spent, and its 64 connections each have a request waiting its turn.
            try await Task.sleep(for: .milliseconds(300))
            var kiosk: [Duration] = []
            for _ in 0..<20 {
                let sent = ContinuousClock.now
                #expect(try await get(pull, token: credential, on: own) == 200)
                kiosk.append(ContinuousClock.now - sent)
                try await Task.sleep(for: .milliseconds(20))
            }
            let sent = ContinuousClock.now
            let forged = try await get(pull, token: "k1-forged-credential", on: own)
            let forgedWait = ContinuousClock.now - sent
            let statuses = try await flood
            #expect(statuses.allSatisfy { $0 == 200 })
            #expect(ContinuousClock.now - started >= .milliseconds(3500), "the flood was not paced")
            let slowest = kiosk.max() ?? .zero
            #expect(slowest < .milliseconds(500), "a kiosk request took \(slowest) during its address's flood")
            #expect(forged == 401)
            #expect(forgedWait >= .milliseconds(300), "a forged credential skipped its address's turn: \(forgedWait)")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
