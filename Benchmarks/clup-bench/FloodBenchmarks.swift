import CLupServer
import Foundation
import Glibc
import Synchronization

/// clup-server on the open internet (issue "public-API hardening"): what one hostile address costs everyone
/// else, and what an open connection costs the server.
enum FloodBenchmarks {
    /// Served clients' request latency with the server quiet, then while one address floods it with ticket
    /// requests on as many connections as it may hold (every one answered 429 after the first few). The
    /// served clients are shoppers following their tickets and browsing stores, each from its own loopback
    /// address; production limits, no trusted proxy (the flood's address is its connection's).
    static func servedUnderFlood(servedClients: Int, requests: Int, floodConnections: Int) async throws {
        let server = try await BenchServer(limits: PublicLimits(), trustProxy: false)
        let store = try server.registerStore(capacity: 50).uuidString
        let port = server.port
        // The tickets the served clients follow, taken before the flood (one per shopper address).
        var tickets: [String] = []
        for c in 0..<servedClients {
            let client = try LoopbackHTTP(port: port, from: "127.0.1.\(c + 1)")
            let work = try client.solvedWork(store: store)
            let answer = try client.request("POST", "/v1/stores/\(store)/tickets", headers: ["Clup-Work": work.proof])
            guard let object = try JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any],
                let id = (object["ticket"] as? [String: Any])?["id"] as? String
            else { throw BenchError("cannot take a ticket: \(String(decoding: answer, as: UTF8.self))") }
            tickets.append(id)
        }
        print("\n== One address floods clup-server: \(servedClients) served clients × \(requests) requests")
        let quiet = try await served(port: port, store: store, tickets: tickets, requests: requests, network: 5)
        let flooding = Flood(port: port, store: store, connections: floodConnections)
        try await Task.sleep(for: .milliseconds(300))
        let loud = try await served(port: port, store: store, tickets: tickets, requests: requests, network: 6)
        let flood = flooding.stop()
        print(
            "quiet: p50 \(fmt(quiet.p50, 2)) ms, p99 \(fmt(quiet.p99, 2)) ms"
        )
        print(
            "under a flood from one address (\(flood.connections) connections held of \(floodConnections) tried, "
                + "\(flood.requests) requests, \(Int(flood.rate)) /s, \(flood.refused) refused, 428 or 429): "
                + "p50 \(fmt(loud.p50, 2)) ms, p99 \(fmt(loud.p99, 2)) ms"
        )
        print("served p99 under flood ÷ quiet p99: \(fmt(loud.p99 / quiet.p99, 2))× (target ≤ 2×)")
        await server.stop()
    }

    /// Each served client on its own address (127.0.`network`.c) and connection: its ticket's status, then the
    /// stores nearby, every 20 ms.
    private static func served(
        port: Int,
        store: String,
        tickets: [String],
        requests: Int,
        network: Int
    ) async throws -> Samples {
        try await withThrowingTaskGroup(of: Samples.self) { group in
            for (c, ticket) in tickets.enumerated() {
                group.addTask {
                    try await onThread {
                        let client = try LoopbackHTTP(port: port, from: "127.0.\(network).\(c + 1)")
                        var samples = Samples()
                        for n in 0..<requests {
                            let sent = ContinuousClock.now
                            let path = n % 2 == 0 ? "/v1/tickets/\(ticket)" : "/v1/stores?lat=45.46&lon=9.19"
                            let body = try client.request("GET", path)
                            guard body.count > 20 else {
                                throw BenchError("unexpected answer: \(String(decoding: body, as: UTF8.self))")
                            }
                            samples.add((ContinuousClock.now - sent).microseconds / 1000)
                            // A shopper's page, not a loop: a request every 20 ms.
                            usleep(20_000)
                        }
                        return samples
                    }
                }
            }
            var all = Samples()
            for try await samples in group { all.merge(samples) }
            return all
        }
    }

    /// The flood: threads from 127.0.2.1 sending ticket requests back to back, each on its own connection,
    /// reconnecting when the server closes one (connections over the address's limit are refused).
    final class Flood: @unchecked Sendable {
        private let running = Mutex(true)
        private let counts = Mutex((requests: 0, refused: 0, connections: 0))
        private var threads: [Thread] = []
        private let started = ContinuousClock.now
        private let done = DispatchGroup()

        init(port: Int, store: String, connections: Int) {
            for _ in 0..<connections {
                done.enter()
                let thread = Thread { [self] in
                    defer { done.leave() }
                    guard let client = try? LoopbackHTTP(port: port, from: "127.0.2.1") else { return }
                    var held = false
                    while running.withLock({ $0 }) {
                        guard let answer = try? client.request("POST", "/v1/stores/\(store)/tickets") else { break }
                        if !held {
                            held = true
                            counts.withLock { $0.connections += 1 }
                        }
                        let text = String(decoding: answer, as: UTF8.self)
                        let refused = text.contains("try again") || text.contains("\"reason\":\"work\"")
                        counts.withLock {
                            $0.requests += 1
                            if refused { $0.refused += 1 }
                        }
                    }
                }
                thread.stackSize = 256 << 10
                threads.append(thread)
                thread.start()
            }
        }

        func stop() -> (requests: Int, refused: Int, connections: Int, rate: Double) {
            let elapsed = (ContinuousClock.now - started).microseconds / 1e6
            running.withLock { $0 = false }
            done.wait()
            let c = counts.withLock { $0 }
            return (c.requests, c.refused, c.connections, Double(c.requests) / elapsed)
        }
    }

    /// What an idle keep-alive connection costs clup-server: `count` clients (64 per loopback address, the
    /// per-address limit) each make one request and stay connected; the growth of this process's resident
    /// memory (the server runs in it; the clients are kernel sockets) per connection.
    static func connectionsPerMegabyte(count: Int) async throws {
        let server = try await BenchServer(limits: PublicLimits(), trustProxy: false)
        let port = server.port
        print("\n== Idle connections: \(count) keep-alive clients, 64 per loopback address")
        // Warm up: the first connections allocate the event loops' buffers.
        var warm: [LoopbackHTTP] = []
        for i in 0..<64 { warm.append(try LoopbackHTTP(port: port, from: "127.0.3.\(i % 200 + 1)")) }
        for client in warm { _ = try client.request("GET", "/healthz") }
        let before = residentBytes()
        var clients: [LoopbackHTTP] = []
        for i in 0..<count {
            let client = try LoopbackHTTP(port: port, from: "127.0.4.\(i / 64 + 1)")
            _ = try client.request("GET", "/healthz")
            clients.append(client)
        }
        try await Task.sleep(for: .milliseconds(500))
        let after = residentBytes()
        let perConnection = Double(after - before) / Double(count)
        print(
            "resident memory: +\(fmt(Double(after - before) / 1_048_576, 1)) MB for \(count) connections → "
                + "\(fmt(perConnection / 1024, 1)) KB each, \(Int(1_048_576 / max(perConnection, 1))) connections per MB"
        )
        clients.removeAll()
        warm.removeAll()
        await server.stop()
    }

    /// Runs blocking client code on a thread of its own (never the cooperative pool).
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}
