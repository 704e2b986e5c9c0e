import CLupServer
import Foundation

/// What a long line costs (issue 44): taking a ticket and reading a ticket's status at a store of 20 places
/// with 30 waiting, and at one with 1,000 waiting — every take and read tells the wait, which rolls the line
/// ahead forward. Goal: the long line within 1.5× of the short one.
extension ServerBenchmarks {
    static func lineLength(takes: Int = 200, reads: Int = 500) async throws {
        var limits = PublicLimits()
        limits.ticketsPerStore = RateLimiter.Rule(burst: 1_000_000, interval: .milliseconds(1))
        limits.newHoldersPerAddress = limits.ticketsPerAddress
        limits.work = nil
        limits.openTicketsPerPlace = 1000
        let server = try await BenchServer(limits: limits)
        print("\n== A long line's cost: a store of 20 places with 30 and with 1,000 waiting")
        let lines = [30, 1000]
        let stores = try lines.map { try server.registerStore(capacity: 20, name: "Line \($0)").uuidString }
        let rates = try await FloodBenchmarks.onThread {
            let client = try LoopbackHTTP(port: server.port)
            func take(_ n: Int, _ k: Int) throws -> String {
                let body = try client.request(
                    "POST",
                    "/v1/stores/\(stores[n])/tickets",
                    forwardedFor: "10.\(100 + n).\(k / 256).\(k % 256)"
                )
                guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
                    let id = (object["ticket"] as? [String: Any])?["id"] as? String
                else { throw BenchError("unexpected answer: \(String(decoding: body, as: UTF8.self))") }
                return id
            }
            var last = ["", ""]
            for n in lines.indices {
                for k in 0..<(20 + lines[n]) { last[n] = try take(n, k) }
            }
            // Takes at each line's end (each one longer by one), then reads of its last ticket's status, in
            // rounds that alternate the two stores: the database's growth and the machine's moments fall on both.
            var takeTime: [Duration] = [.zero, .zero]
            var readTime: [Duration] = [.zero, .zero]
            for round in 0..<(takes / 20) {
                for n in lines.indices {
                    let started = ContinuousClock.now
                    for j in 0..<20 { last[n] = try take(n, 20 + lines[n] + round * 20 + j) }
                    takeTime[n] += ContinuousClock.now - started
                }
            }
            for round in 0..<(reads / 50) {
                for n in lines.indices {
                    let started = ContinuousClock.now
                    // Each read from an address of its own, as shoppers' phones are: one address is paced at 20/s.
                    for j in 0..<50 {
                        let k = round * 50 + j
                        _ = try client.request(
                            "GET",
                            "/v1/tickets/\(last[n])",
                            forwardedFor: "10.\(110 + n).\(k / 256).\(k % 256)"
                        )
                    }
                    readTime[n] += ContinuousClock.now - started
                }
            }
            return lines.indices.map { n in
                (
                    take: Double(takes / 20 * 20) / (takeTime[n].microseconds / 1e6),
                    read: Double(reads / 50 * 50) / (readTime[n].microseconds / 1e6)
                )
            }
        }
        for (n, rate) in rates.enumerated() {
            print("\(lines[n]) waiting: takes \(Int(rate.take))/s, status reads \(Int(rate.read))/s")
        }
        print(
            String(
                format: "1,000 against 30 waiting: takes %.2f×, status reads %.2f× as slow (goal ≤ 1.5×)",
                rates[0].take / rates[1].take,
                rates[0].read / rates[1].read
            )
        )
        await server.stop()
    }
}
