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
        var rates: [(take: Double, read: Double)] = []
        for (n, waiting) in [30, 1000].enumerated() {
            let store = try server.registerStore(capacity: 20, name: "Line \(waiting)").uuidString
            let rate = try await FloodBenchmarks.onThread {
                let client = try LoopbackHTTP(port: server.port)
                var last = ""
                func take(_ k: Int) throws -> String {
                    let body = try client.request(
                        "POST",
                        "/v1/stores/\(store)/tickets",
                        forwardedFor: "10.\(100 + n).\(k / 256).\(k % 256)"
                    )
                    guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
                        let id = (object["ticket"] as? [String: Any])?["id"] as? String
                    else { throw BenchError("unexpected answer: \(String(decoding: body, as: UTF8.self))") }
                    return id
                }
                for k in 0..<(20 + waiting) { last = try take(k) }
                // Takes at the line's end (each one longer by one), then reads of the last ticket's status.
                let started = ContinuousClock.now
                for k in 0..<takes { last = try take(20 + waiting + k) }
                let takeRate = Double(takes) / ((ContinuousClock.now - started).microseconds / 1e6)
                let reading = ContinuousClock.now
                // Each read from an address of its own, as shoppers' phones are: one address is paced at 20/s.
                for k in 0..<reads {
                    _ = try client.request(
                        "GET",
                        "/v1/tickets/\(last)",
                        forwardedFor: "10.\(110 + n).\(k / 256).\(k % 256)"
                    )
                }
                let readRate = Double(reads) / ((ContinuousClock.now - reading).microseconds / 1e6)
                return (takeRate, readRate)
            }
            print("\(waiting) waiting: takes \(Int(rate.0))/s, status reads \(Int(rate.1))/s")
            rates.append(rate)
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
