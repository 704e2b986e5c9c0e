import DeviceEmulators
import Foundation
import KioskCore
import Testing

@testable import KioskStation
@testable import Rigs

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `GET /metrics` counts what happened at a real kiosk: tickets printed and torn off at the emulator, the
/// tear-off latency, door decisions by reason, occupancy, and the printer's paper as it runs out.
@Suite(.serialized) struct MetricsTests {
    /// The exposition as `name{labels}` → value.
    static func scrape(_ port: Int) async throws -> [String: Double] {
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
        #expect(
            (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("text/plain") == true
        )
        var values: [String: Double] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            values[String(line[..<space])] = value
        }
        return values
    }

    @Test func metricsCountTicketsScansAndPaper() async throws {
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        let rig = try StationRig(profile: "custom-vkp80iii") {
            $0.store.capacity = 1
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)"
        }
        do {
            let port = try #require(rig.kiosk.httpPort.wait())
            let door = try #require(rig.kiosk.door)
            try await rig.requireTickets(1)
            #expect(await rig.wait { rig.station.status.state == .ready } != nil)
            var metrics = try await Self.scrape(port)
            #expect(metrics["clup_tickets_printed_total"] == 1)
            #expect(metrics["clup_tickets_taken_total"] == 0)
            #expect(metrics["clup_printer_state{state=\"ready\"}"] == 1)
            #expect(metrics["clup_printer_paper{paper=\"ok\"}"] == 1)

            // Two customers take tickets: two tear-offs, two latencies, three tickets printed in all.
            await rig.customerTakes()
            try await rig.requireTickets(2)
            #expect(
                await rig.wait { rig.station.status.waitingTicket == "A002" && rig.station.status.state == .ready }
                    != nil
            )
            await rig.customerTakes()
            let tickets = try await rig.requireTickets(3)
            #expect(
                await rig.wait { rig.station.status.waitingTicket == "A003" && rig.station.status.state == .ready }
                    != nil
            )

            // At the door: A001 admitted, A002 refused (store full: capacity 1), garbage unreadable.
            func scan(_ bytes: [UInt8]) async throws {
                let before = door.status.admitted + door.status.refused
                try scanner.send(bytes)
                #expect(await rig.wait { door.status.admitted + door.status.refused > before } != nil)
            }
            try await scan(Array(try #require(tickets[0].qrCodes.first).utf8) + [0x0D])
            try await scan(Array(try #require(tickets[1].qrCodes.first).utf8) + [0x0D])
            try await scan(Array("\u{1}garbage".utf8) + [0x0D])

            metrics = try await Self.scrape(port)
            #expect(metrics["clup_tickets_printed_total"] == 3)
            #expect(metrics["clup_tickets_taken_total"] == 2)
            #expect(metrics["clup_tearoff_next_ticket_seconds_count"] == 2)
            let latencySum = try #require(metrics["clup_tearoff_next_ticket_seconds_sum"])
            #expect(latencySum > 0 && latencySum < 4, "two tear-offs, each well under 2 s: \(latencySum) s")
            #expect(metrics["clup_tearoff_next_ticket_seconds_bucket{le=\"2.0\"}"] == 2)
            #expect(metrics["clup_scans_total{decision=\"admit\"}"] == 1)
            #expect(metrics["clup_scans_total{decision=\"store_full\"}"] == 1)
            #expect(metrics["clup_scans_total{decision=\"unreadable\"}"] == 1)
            #expect(metrics["clup_occupancy"] == 1)
            #expect(metrics["clup_capacity"] == 1)
            #expect(metrics["clup_queue_waiting"] == 1)
            #expect(metrics["clup_scanner_up"] == 1)

            _ = try await DoorLiveTests.post(port, "/door/exit")
            rig.emulator.simulate(.paperEnd(true))
            #expect(await rig.wait { rig.station.status.paper == "out" } != nil)
            metrics = try await Self.scrape(port)
            #expect(metrics["clup_occupancy"] == 0)
            #expect(metrics["clup_exits_total"] == 1)
            #expect(metrics["clup_printer_paper{paper=\"out\"}"] == 1)
            #expect(metrics["clup_printer_paper{paper=\"ok\"}"] == 0)
            #expect(metrics["clup_printer_state{state=\"fault\"}"] == 1)
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }
}
