import CLupServer
import Foundation

/// clup-server benchmark (issue "clup-server and sync"): virtual tickets per second the server sustains on
/// this machine, with the latency of each request, from concurrent clients on loopback keep-alive connections.
enum ServerBenchmarks {
    /// Every check runs (holder tokens, the per-address rule over thousands of addresses, the cap); the
    /// store's own rate is opened, as the bench is one store taking a city's tickets.
    static func virtualTickets(clients: Int, perClient: Int) async throws {
        var limits = PublicLimits()
        limits.ticketsPerStore = RateLimiter.Rule(burst: 1_000_000, interval: .milliseconds(1))
        limits.newHoldersPerAddress = limits.ticketsPerAddress  // the bench's clients send no holder token
        limits.work = nil  // the server's own cost: the work is the client's (measured by the flood bench)
        limits.openTicketsPerPlace = 1000
        let server = try await BenchServer(limits: limits)
        let port = server.port
        let store = try server.registerStore(capacity: 100_000).uuidString  // every ticket waits in line
        print("\n== Virtual tickets: \(clients) concurrent clients × \(perClient) tickets on loopback keep-alive")
        let (all, elapsed) = try await takeTickets(ports: [port], store: store, clients: clients, perClient: perClient)
        let rate = Double(all.count) / (elapsed.microseconds / 1e6)
        print(
            "tickets: \(all.count) in \(fmt(elapsed.microseconds / 1e6, 2)) s → \(Int(rate)) tickets/s (target ≥ 2,000/s)"
        )
        print(
            "latency per request: p50 \(fmt(all.p50, 2)) ms, p99 \(fmt(all.p99, 2)) ms, max \(fmt(all.percentile(100), 2)) ms"
        )
        await server.stop()
    }

    /// `clients` threads on keep-alive connections, client c to `ports[c % ports.count]`, each taking
    /// `perClient` virtual tickets for as many phones (one address each: 10.c.n/256.n%256); every request's
    /// latency in ms, and how long they all took.
    static func takeTickets(
        ports: [Int],
        store: String,
        clients: Int,
        perClient: Int
    ) async throws -> (Samples, Duration) {
        let started = ContinuousClock.now
        let all = try await withThrowingTaskGroup(of: Samples.self) { group in
            for c in 0..<clients {
                let port = ports[c % ports.count]
                group.addTask {
                    try await FloodBenchmarks.onThread {
                        let client = try LoopbackHTTP(port: port)
                        var samples = Samples()
                        for n in 0..<perClient {
                            let sent = ContinuousClock.now
                            let body = try client.request(
                                "POST",
                                "/v1/stores/\(store)/tickets",
                                forwardedFor: "10.\(c).\(n / 256).\(n % 256)"
                            )
                            guard String(decoding: body, as: UTF8.self).contains(#""code":"V"#) else {
                                throw BenchError("unexpected answer: \(String(decoding: body, as: UTF8.self))")
                            }
                            samples.add((ContinuousClock.now - sent).microseconds / 1000)
                        }
                        return samples
                    }
                }
            }
            var all = Samples()
            for try await samples in group { all.merge(samples) }
            return all
        }
        return (all, ContinuousClock.now - started)
    }
}
