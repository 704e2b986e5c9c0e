import Foundation
import KioskCore
import Testing

@testable import KioskStation
@testable import Rigs

/// The store's settings, set once on clup-server, reach its kiosk with the log: its languages (set by the
/// manager, `PATCH /v1/stores/{id}`) and the call window (the server's `--call-window-minutes`) replace the box's
/// `[voice] languages` and `[door] call_window_minutes`; the next ticket prints in the store's languages, the
/// main one first; `/status` says each value and where it came from; the kiosk keeps them on disk.
@Suite(.serialized) struct StoreSettingsTests {
    @Test func aKioskFollowsTheStoresLanguagesAndCallWindow() async throws {
        let server = try await ServerRig(callWindowMinutes: 7)
        let storeID = try await server.registerStore(["capacity": 5])
        let path = "/v1/stores/\(storeID.uuidString)"
        for bad: [String] in [[], ["fr"], ["it", "it"], ["en", "it", "en"], [String(repeating: "e", count: 5000)]] {
            let refused = try await server.call("PATCH", path, json: ["languages": bad])
            #expect(refused.status == 400 && refused.body["field"] as? String == "languages", "\(bad.prefix(3))")
        }
        for (field, bad) in [
            ("voiceVolume", 101 as Any), ("voiceVolume", -1), ("footer", "two\nlines"),
            ("footer", String(repeating: "x", count: 81)), ("footer", String(repeating: "é", count: 200)),
            ("largePrint", "yes"),
        ] {
            let refused = try await server.call("PATCH", path, json: [field: bad])
            #expect(refused.status == 400 && refused.body["field"] as? String == field, "\(field): \(refused)")
        }
        let set = try await server.call(
            "PATCH",
            path,
            json: [
                "languages": ["it", "en"], "largePrint": true, "voiceVolume": 40, "footer": "Grazie — thank you",
                "averageVisitMinutes": 15,
            ]
        )
        #expect(set.status == 200 && set.body["languages"] as? [String] == ["it", "en"], "\(set.body)")
        #expect(set.body["largePrint"] as? Bool == true && set.body["voiceVolume"] as? Int == 40)
        let credential = try await server.enroll("entrance", store: storeID)
        let kiosk = try StationRig(profile: "custom-vkp80iii") {
            $0.syncing(with: server, store: storeID, device: "entrance", credential: credential, capacity: 5)
            $0.door.callWindowMinutes = 12
            $0.voice.languages = [.english]
            $0.voice.volume = 90
            $0.printer.footer = "the box's own line"
            $0.store.name = "The Box's Name"
            $0.store.averageVisit = .seconds(30 * 60)
        }
        do {
            _ = try await kiosk.requireTickets(1)
            let port = try #require(kiosk.kiosk.httpPort.wait())
            var status = try await HIL.status(port: port)
            for _ in 0..<100 where status.settings?.languages.from != .server {
                try await Task.sleep(for: .milliseconds(100))
                status = try await HIL.status(port: port)
            }
            let settings = try #require(status.settings)
            #expect(settings.languages.value == ["it", "en"] && settings.languages.from == .server, "\(settings)")
            #expect(settings.callWindowMinutes.value == 7 && settings.callWindowMinutes.from == .server)
            #expect(settings.largePrint.value && settings.largePrint.from == .server, "\(settings)")
            #expect(settings.voiceVolume.value == 40 && settings.footer.value == "Grazie — thank you")
            #expect(settings.averageVisitMinutes.value == 15 && settings.averageVisitMinutes.from == .server)
            #expect(
                settings.name.value == "Test Market" && settings.name.from == .server && status.store == "Test Market"
            )
            #expect(kiosk.kiosk.voice == nil || kiosk.kiosk.voice?.volume() == 40)
            // The ticket printed next speaks Italian first, English below.
            await kiosk.customerTakes()
            let tickets = try await kiosk.requireTickets(2)
            let text = tickets[1].text.joined(separator: "\n")
            #expect(text.contains("persona davanti") || text.contains("persone davanti"), "\(text)")
            #expect(text.contains("person ahead") || text.contains("people ahead"), "\(text)")
            let italian = try #require(text.range(of: "davanti"))
            let english = try #require(text.range(of: "ahead"))
            #expect(italian.lowerBound < english.lowerBound, "the main language first: \(text)")
            #expect(text.contains("Grazie") && !text.contains("the box's own line"), "the store's footer: \(text)")
            #expect(text.contains("Test Market") && !text.contains("The Box's Name"), "the store's name: \(text)")
            // Large print: the number six lines tall (ESC/POS `GS !` with height 6), which the first ticket, printed
            // before the store's settings came, was not.
            func sixHigh(_ bytes: [UInt8]) -> Bool {
                zip(bytes, bytes.dropFirst()).enumerated().contains { index, pair in
                    pair == (0x1D, 0x21) && index + 2 < bytes.count && bytes[index + 2] & 0x0F == 5
                }
            }
            #expect(sixHigh(tickets[1].bytes) && !sixHigh(tickets[0].bytes), "large print")
            // Kept for a start without the server.
            let kept = try #require(try kiosk.kiosk.store.serverSettings())
            #expect(kept.contains("\"it\"") && kept.contains("7"), "\(kept)")
        } catch {
            await kiosk.stop()
            await server.stop()
            throw error
        }
        await kiosk.stop()
        await server.stop()
    }
}
