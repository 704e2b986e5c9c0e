import DeviceEmulators
import Foundation
import KioskCore
import SyncWire
import Testing

@testable import KioskStation
@testable import Rigs

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The fleet's health: a kiosk reports its printer, door, paper and version through sync; the store's kiosk
/// list and the server's Prometheus metrics show it (paper out within seconds); the alert rules that ship for
/// those metrics pass promtool's check and their unit tests, and the exposition passes promtool's lint.
@Suite(.serialized) struct FleetHealthTests {
    static let promtool = "/usr/bin/promtool"
    static var promtoolReady: Bool { HIL.strict || FileManager.default.isExecutableFile(atPath: promtool) }

    @Test(.enabled(if: promtoolReady, "needs promtool (apt-get install prometheus; make test does it)"))
    func theAlertRulesPassPromtool() throws {
        let rules = "\(HIL.packageRoot)/packaging/prometheus/clup-fleet-rules.yml"
        let check = try HIL.run(Self.promtool, ["check", "rules", rules])
        #expect(check.status == 0, "\(check.output)\(check.error)")
        let test = try HIL.run(
            "/bin/sh",
            ["-c", "cd '\(HIL.packageRoot)/Tests/Prometheus' && \(Self.promtool) test rules clup-fleet-rules.test.yml"]
        )
        #expect(test.status == 0, "\(test.output)\(test.error)")
    }

    @Test func aKioskReportsItsPrinterAndTheServerExportsIt() async throws {
        let server = try await ServerRig()
        let storeID = try await server.registerStore(["capacity": 5])
        let credential = try await server.enroll("entrance", store: storeID)
        let kiosk = try StationRig(profile: "custom-vkp80iii") {
            $0.syncing(with: server, store: storeID, device: "entrance", credential: credential, capacity: 5)
            $0.printer.rollTickets = 10
        }
        func health() async throws -> [String: Any] {
            let answer = try await server.call("GET", "/v1/stores/\(storeID.uuidString)/devices")
            let device = (answer.body["devices"] as? [[String: Any]])?.first { $0["device"] as? String == "entrance" }
            return device?["health"] as? [String: Any] ?? [:]
        }
        func waitForHealth(_ holds: @escaping ([String: Any]) -> Bool) async throws -> [String: Any] {
            var last: [String: Any] = [:]
            for _ in 0..<100 {
                last = try await health()
                if holds(last) { return last }
                try await Task.sleep(for: .milliseconds(100))
            }
            return last
        }
        do {
            try await kiosk.requireTickets(1)
            for n in 2...4 {
                await kiosk.customerTakes()
                try await kiosk.requireTickets(n)
            }
            // Four printed on this roll of ten: six left.
            let ready = try await waitForHealth { $0["ticketsSincePaperLoad"] as? Int == 4 }
            #expect(ready["printer"] as? String == "ready", "\(ready)")
            #expect(ready["ticketsLeft"] as? Int == 6, "\(ready)")
            #expect(ready["version"] as? String == KioskStation.version)
            #expect(ready["door"] == nil && ready["light"] == nil && ready["voice"] == nil, "no door, light or voice")
            // What sync knows and the kiosk's clock travel with the report: the server sees its offset and protocol.
            #expect(ready["quarantined"] as? Int == 0 && ready["newerEvents"] as? Int == 0, "\(ready)")
            let listed = try await server.call("GET", "/v1/stores/\(storeID.uuidString)/devices")
            let row = (listed.body["devices"] as? [[String: Any]])?.first ?? [:]
            #expect(row["syncProtocol"] as? Int == SyncProtocol.current, "\(row)")
            #expect(
                abs(row["clockOffsetSeconds"] as? Int ?? 99) <= 2 && row["problems"] as? [String] == ["paper"],
                "six tickets left: \(row)"
            )

            // Paper out: the report follows within seconds, and the metrics say so.
            kiosk.emulator.simulate(.paperEnd(true))
            let out = try await waitForHealth { $0["printer"] as? String == "paper_out" }
            #expect(out["printer"] as? String == "paper_out", "\(out)")
            var request = URLRequest(url: URL(string: "\(server.url)/metrics")!)
            let anonymous = try await URLSession.shared.data(for: request)
            #expect((anonymous.1 as? HTTPURLResponse)?.statusCode == 401, "the fleet's metrics need the admin token")
            request.setValue("Bearer \(ServerRig.adminToken)", forHTTPHeaderField: "Authorization")
            let metrics = String(decoding: try await URLSession.shared.data(for: request).0, as: UTF8.self)
            let store = storeID.uuidString.lowercased()
            let lines = metrics.split(separator: "\n").map(String.init)
            func value(_ name: String, _ labels: String) -> String? {
                lines.first { $0.hasPrefix("\(name){") && $0.contains(labels) }?.split(separator: " ").last.map(
                    String.init
                )
            }
            #expect(value("clup_kiosk_printer_state", #"state="paper_out""#).map { Double($0) } == 1, "\(metrics)")
            #expect(value("clup_kiosk_printer_state", #"state="ready""#).map { Double($0) } == 0)
            #expect(value("clup_kiosk_tickets_left", #"device="entrance""#).map { Double($0) } == 6)
            #expect(metrics.contains(#"store="\#(store)""#))
            if FileManager.default.isExecutableFile(atPath: Self.promtool) {
                let file = HIL.temporaryDirectory("metrics") + "/metrics.txt"
                try metrics.write(toFile: file, atomically: true, encoding: .utf8)
                let lint = try HIL.run("/bin/sh", ["-c", "\(Self.promtool) check metrics < '\(file)'"])
                #expect(lint.status == 0, "promtool check metrics: \(lint.output)\(lint.error)")
            }
            // Paper loaded: a new roll, counted from zero.
            kiosk.emulator.simulate(.paperEnd(false))
            let loaded = try await waitForHealth { $0["printer"] as? String == "ready" }
            #expect((loaded["ticketsSincePaperLoad"] as? Int ?? 99) <= 1, "\(loaded)")

            // A report that is not kioskd's words is refused, and only a kiosk's credential may report.
            let bad = try await server.call(
                "PUT",
                "/v1/devices/self/health",
                token: credential,
                json: ["version": "0.1", "printer": "on fire", "pendingEvents": 0]
            )
            #expect(bad.status == 400 && bad.body["field"] as? String == "printer", "\(bad)")
            let admin = try await server.call(
                "PUT",
                "/v1/devices/self/health",
                json: ["version": "0.1", "pendingEvents": 0]
            )
            #expect(admin.status == 401)
        } catch {
            await kiosk.stop()
            await server.stop()
            throw error
        }
        await kiosk.stop()
        await server.stop()
    }
}
