import Foundation
import Glibc
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking

@testable import Rigs
#endif

/// clup-server as its own process stops at once on SIGTERM, even while kiosks long-poll and shoppers follow
/// their tickets: every long-poll and stream is answered or ended (clients reconnect, through a load balancer
/// to another replica), and the process exits 0.
@Suite(.serialized) struct ShutdownTests {
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: HIL.clupServer),
            "clup-server is not built next to the tests"
        )
    )
    func sigtermEndsLongPollsAndStreamsAtOnce() async throws {
        let directory = HIL.temporaryDirectory("shutdown")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = try HIL.freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: HIL.clupServer)
        process.arguments = [
            "--port", "\(port)", "--database", "\(directory)/clup.sqlite", "--log-level", "warning",
            "--trusted-proxy", "127.0.0.1", "--tickets-per-store", "1000/1", "--open-tickets-per-place", "50",
            "--ticket-work", "off",
        ]
        process.environment = ["CLUP_ADMIN_TOKEN": ServerRig.adminToken]
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let base = "http://127.0.0.1:\(port)"
        func call(
            _ method: String,
            _ path: String,
            token: String?,
            json: Any? = nil,
            address: String? = nil
        )
            async throws -> [String: Any]
        {
            var request = URLRequest(url: URL(string: base + path)!)
            request.httpMethod = method
            if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
            if let address { request.setValue(address, forHTTPHeaderField: "X-Forwarded-For") }
            if let json { request.httpBody = try JSONSerialization.data(withJSONObject: json) }
            let (data, _) = try await URLSession.shared.data(for: request)
            return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        }
        var up = false
        for _ in 0..<200 where !up {
            up = (try? await call("GET", "/healthz", token: nil)) != nil
            if !up { try await Task.sleep(for: .milliseconds(25)) }
        }
        try #require(up, "clup-server did not start")
        let store = try #require(
            try await call(
                "POST",
                "/v1/stores",
                token: ServerRig.adminToken,
                json: [
                    "store": ServerRig.storeProfile,
                    "manager": ["username": "manager", "password": "correct horse battery"],
                ]
            )["id"] as? String
        )
        let credential = try #require(
            try await call("POST", "/v1/stores/\(store)/devices", token: ServerRig.adminToken, json: ["device": "k1"])[
                "credential"
            ] as? String
        )
        // 25 kiosks' long-polls (60 s) and 25 shoppers' streams, each from its own address.
        var clients: [EventStreamClient] = []
        for i in 0..<25 {
            clients.append(
                try EventStreamClient(
                    port: port,
                    path: "/v1/stores/\(store)/events?after=1000&wait=60",
                    headers: ["Authorization": "Bearer \(credential)"]
                )
            )
            let ticket = try await call("POST", "/v1/stores/\(store)/tickets", token: nil, address: "192.0.2.\(i)")
            let id = try #require((ticket["ticket"] as? [String: Any])?["id"] as? String, "\(ticket)")
            let stream = try EventStreamClient(
                port: port,
                path: "/v1/tickets/\(id)/events",
                headers: ["X-Forwarded-For": "198.51.100.\(i)"]
            )
            #expect(await stream.next() != nil, "stream \(i) did not start")
            clients.append(stream)
        }
        try await Task.sleep(for: .milliseconds(300))  // the long-polls are waiting now
        let start = ContinuousClock.now
        kill(process.processIdentifier, SIGTERM)
        while process.isRunning && ContinuousClock.now - start < .seconds(30) {
            try await Task.sleep(for: .milliseconds(10))
        }
        let took = ContinuousClock.now - start
        #expect(!process.isRunning)
        #expect(took < .seconds(2), "clup-server took \(took) to stop with 50 open long-polls and streams")
        #expect(process.terminationStatus == 0)
        for client in clients { #expect(await client.ended(within: .seconds(1))) }
    }
}
