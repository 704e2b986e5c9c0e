import Foundation
import KioskCore
import ServiceSupport
import Testing

@testable import CLupServer
@testable import Rigs

/// The server's metrics score every told wait as its ticket leaves the line: the absolute error against the
/// wait until the call as a histogram, and how many fell in the told range, per store (the alert rule
/// ClupWaitEstimatesOff reads them).
@Suite struct EstimateMetricsTests {
    @Test func toldWaitsAreScoredInTheMetrics() async throws {
        // The server's clock moves on as the store's minutes pass (events pushed long after they happened join
        // the line when they arrive).
        let offset = WallClock.Offset()
        let clock = WallClock.shifted(by: offset)
        let server = try await ServerRig(clock: clock)
        do {
            // A zone whose local noon is now: the quarter of an hour below never crosses a day's start.
            let hour = Calendar(identifier: .gregorian).dateComponents(in: .gmt, from: Date()).hour ?? 12
            let east = 12 - hour
            let zone = east >= 0 ? "Etc/GMT-\(east)" : "Etc/GMT+\(-east)"
            let store = try await server.registerStore(["capacity": 1, "timeZone": zone])
            let credential = try await server.enroll("k1", store: store)
            let start = clock.now()
            func paper(_ number: Int, at seconds: Int64) -> Ticket {
                Ticket(
                    id: .v7(at: start + .seconds(seconds)),
                    store: store,
                    kind: .paper,
                    code: TicketCode(prefix: "A", number: number),
                    issuedAt: start + .seconds(seconds),
                    issuer: "k1"
                )
            }
            func told(_ point: Int64, _ low: Int64, _ high: Int64) -> WaitRange {
                WaitRange(point: .seconds(point), low: .seconds(low), high: .seconds(high))
            }
            let first = paper(1, at: 0)
            let second = paper(2, at: 3)
            let untold = paper(3, at: 5)
            // A001 told no wait, called as it is taken (the store is empty); A002 told 10 minutes (8–12), called
            // 5 minutes after its take when A001 leaves; A003 from a kiosk of the previous version: not scored.
            let bodies: [(Int64, StoreEvent.Body)] = [
                (0, .ticketIssued(first, told: told(0, 0, 0))), (1, .ticketTaken(first.id)),
                (2, .ticketAdmitted(first.id, door: "k1")),
                (3, .ticketIssued(second, told: told(600, 480, 720))), (4, .ticketTaken(second.id)),
                (5, .ticketIssued(untold, told: nil)), (6, .ticketTaken(untold.id)),
                (304, .customerExited), (305, .ticketAdmitted(second.id, door: "k1")),
                (900, .customerExited), (901, .ticketAdmitted(untold.id, door: "k1")),
            ]
            for (seconds, body) in bodies {
                offset.advance(by: start + .seconds(seconds) - clock.now())
                let event = StoreEvent.new(body, store: store, device: "k1", at: clock.now())
                let answer = try await server.call(
                    "POST",
                    "/v1/stores/\(store.uuidString)/events",
                    token: credential,
                    raw: try JSONEncoder().encode(["events": [event]])
                )
                #expect(answer.status == 200)
            }
            let scrape = try await server.exchange("GET", "/metrics", token: ServerRig.adminToken)
            let metrics = String(decoding: scrape.body, as: UTF8.self)
            let label = "{store=\"\(store.uuidString.lowercased())\""
            func value(_ name: String, le: String? = nil) -> Double? {
                metrics.split(separator: "\n").first { line in
                    line.hasPrefix(name + label) && (le.map { line.contains("le=\"\($0)") } ?? true)
                }.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
            }
            #expect(value("clup_wait_estimate_error_seconds_count") == 2, "\(metrics)")
            #expect(value("clup_wait_estimate_error_seconds_sum") == 300)
            #expect(value("clup_wait_estimate_error_seconds_bucket", le: "30") == 1)
            #expect(value("clup_wait_estimate_error_seconds_bucket", le: "300") == 2)
            // A001 was told no range (a wait of 0); A002's range (8–12 min) missed its 5-minute wait.
            #expect(value("clup_wait_estimate_ranged_total") == 1)
            #expect(value("clup_wait_estimate_in_range_total") == 0)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
