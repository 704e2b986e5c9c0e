import Foundation
import KioskCore
import Testing

@testable import CLupServer
@testable import Rigs

extension ReplicaTests {
    /// Each replica keeps a store's key ring in memory (every long-poll page carries its digest): read again it
    /// costs no database read; a key registered through one replica reaches the other's kept ring, and a revoked
    /// kiosk's key leaves it, within moments (the `k:` notification).
    @Test func keptKeyRingsFollowKeysAndRevocationsOnEveryReplica() async throws {
        try await withTwoReplicas { one, two in
            let store = try await one.registerStore()
            #expect(try await eventually { two.app.logs.store(store) != nil }, "replica two never heard of the store")
            let reader = try await one.enroll("reader", store: store)
            let keyed = try await one.enroll("k1", store: store)
            func devices(_ rig: ServerRig) async throws -> Set<String> {
                let page = try await rig.call("GET", "/v1/stores/\(store.uuidString)/keys", token: reader)
                return Set(((page.body["keys"] as? [[String: Any]]) ?? []).compactMap { $0["device"] as? String })
            }
            func settled(_ rig: ServerRig, _ wanted: Set<String>) async throws -> Set<String> {
                let deadline = ContinuousClock.now + .seconds(5)
                var seen = try await devices(rig)
                while seen != wanted, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                    seen = try await devices(rig)
                }
                return seen
            }

            let server: Set = [ServerIssue.device]
            #expect(try await devices(two) == server)
            // A kept ring read again costs no read — checked over two reads that no forgetting came between or
            // before (the enrolments' `k:` notifications reach replica two when they do; on a loaded machine, late).
            let rings = two.app.logs.keyRings
            var quiet = false
            for _ in 0..<20 where !quiet {
                let generation = rings.generation
                _ = try await devices(two)
                let reads = rings.reads.load(ordering: .relaxed)
                _ = try await devices(two)
                if rings.generation == generation {
                    #expect(rings.reads.load(ordering: .relaxed) == reads, "a kept ring was read again")
                    quiet = true
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(quiet, "replica two forgot the ring at every read")

            let signer = TicketSigner()
            let registered = try await one.call(
                "PUT",
                "/v1/devices/self/key",
                token: keyed,
                json: [
                    "device": "k1", "keyId": signer.keyID.description,
                    "publicKey": signer.publicKey.rawRepresentation.base64EncodedString(),
                ]
            )
            #expect(registered.status == 204, "\(registered.body)")
            #expect(try await devices(one) == server.union(["k1"]))
            #expect(try await settled(two, server.union(["k1"])) == server.union(["k1"]))

            let revoked = try await one.call("DELETE", "/v1/stores/\(store.uuidString)/devices/k1")
            #expect(revoked.status == 204, "\(revoked.body)")
            #expect(try await devices(one) == server)
            #expect(try await settled(two, server) == server, "a revoked kiosk's key stayed in the other ring")
        }
    }
}
