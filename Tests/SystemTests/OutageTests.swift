import CLupServer
import DeviceEmulators
import Foundation
import KioskCore
import Testing

@testable import KioskStation
@testable import Rigs

/// clup-server down for two minutes (`CLUP_OUTAGE_SECONDS` to change it) while a store goes on: the north
/// kiosk prints tickets that are torn off and admits people, the south door admits too, and both let in the
/// same app ticket, unaware of each other. When the server is back, every event reaches it exactly once, the
/// server's queue and both kiosks' queues are the same, and the double admission is reported everywhere.
@Suite(.serialized) struct OutageTests {
    static var outage: Duration {
        .seconds(ProcessInfo.processInfo.environment["CLUP_OUTAGE_SECONDS"].flatMap(Int.init) ?? 120)
    }

    @Test(.enabled(if: HIL.needs("zbarimg"), "zbarimg not installed (apt-get install zbar-tools; make test does it)"))
    func twoMinutesWithoutTheServer() async throws {
        var server = try await ServerRig()
        let storeID = try await server.registerStore(["capacity": 3])
        let credentials = [
            "north": try await server.enroll("north", store: storeID),
            "south": try await server.enroll("south", store: storeID),
        ]
        let scanners = [try SerialScannerEmulator(suffix: .cr), try SerialScannerEmulator(suffix: .cr)]
        defer { for scanner in scanners { scanner.close() } }
        func kiosk(_ name: String, scanner: SerialScannerEmulator, printing: Bool) throws -> StationRig {
            try StationRig(profile: "custom-vkp80iii") {
                $0.store.id = storeID
                $0.store.capacity = 3
                $0.device.id = name
                $0.sync.server = server.url
                $0.store.timeZone = .standardStore  // as installed: no day guessed in UTC before the first sync
                $0.store.hours = .standardStore
                $0.sync.credential = credentials[name]!
                $0.sync.pullWaitSeconds = 5
                $0.printer.enabled = printing
                $0.door.enabled = true
                $0.door.scanner = "serial://\(scanner.path)"
            }
        }
        let north = try kiosk("north", scanner: scanners[0], printing: true)
        let south = try kiosk("south", scanner: scanners[1], printing: false)
        do {
            // Online: A001 torn off and an app ticket; both doors know both and every key.
            try await north.requireTickets(1)
            await north.customerTakes()
            let app = try await server.call("POST", "/v1/stores/\(storeID.uuidString)/tickets", token: nil)
            let appQR = try #require(app.body["qr"] as? String)
            for rig in [north, south] {
                #expect(await rig.wait(.seconds(10)) { rig.kiosk.queue.snapshot.waiting.count == 2 } != nil)
            }
            // Each door has the keys of the tickets it will see: north its own and the server's; south those
            // and north's (fetched when north's first ticket showed in the log).
            #expect(await north.wait(.seconds(10)) { north.kiosk.door?.keyRing.count ?? 0 >= 2 } != nil)
            #expect(await south.wait(.seconds(10)) { south.kiosk.door?.keyRing.count == 3 } != nil)

            // The server goes away.
            let (directory, port) = (server.directory, server.port)
            await server.stop(removingData: false)
            let started = ContinuousClock.now
            func scan(_ payload: String, at rig: StationRig) async throws -> String? {
                try await rig.scan(payload, on: scanners[rig === north ? 0 : 1])
            }
            // Tear-offs all through the outage, one every eighth of it.
            var torn = 1
            func tearOff() async throws {
                try await north.requireTickets(torn + 1)
                await north.customerTakes()
                torn += 1
            }
            try await tearOff()
            #expect(await north.wait(.seconds(15)) { north.kiosk.sync?.status.state == "offline" } != nil)
            #expect(try await scan(appQR, at: south) == "admit V001")
            let paper = try north.emulator.tickets.prefix(2).map { ticket in
                let png = try #require(ticket.pngPath)
                return try #require(try HIL.decodeQR(png: png).first)
            }
            #expect(try await scan(paper[0], at: north) == "admit A001")
            // North cannot know that south let V001 in.
            #expect(try await scan(appQR, at: north) == "admit V001")
            #expect(try north.kiosk.door?.customerExited() == true)
            #expect(try await scan(paper[1], at: north) == "admit A002")
            while ContinuousClock.now - started < Self.outage {
                try await Task.sleep(for: Self.outage / 8)
                try await tearOff()
            }
            for rig in [north, south] {
                #expect(rig.kiosk.sync?.status.state == "offline")
                #expect(try rig.kiosk.store.outboxCount() > 0)
            }

            // Back on the same address with the same database.
            server = try await ServerRig(directory: directory, port: port)
            let end = { server.app.logs.store(storeID)?.lastSequence ?? -1 }
            // Both at once: a kiosk that caught up before the other had pushed its outbox has not seen those
            // events yet (the log's end moved on after it).
            let bothCaughtUp = await north.wait(.seconds(30)) {
                [north, south].allSatisfy { rig in
                    (try? rig.kiosk.store.outboxCount()) == 0 && rig.kiosk.sync?.status.lastSequence == end()
                }
            }
            #expect(
                bothCaughtUp != nil,
                "did not catch up: north \(north.kiosk.sync!.status), south \(south.kiosk.sync!.status)"
            )

            // Exactly once: every kiosk event in the server's log once, with the sequence the kiosk recorded.
            let log = try await server.app.database.events(store: storeID, after: 0, limit: .max)
            let sequenceOf = Dictionary(uniqueKeysWithValues: log.map { ($0.id, $0.sequence) })
            for rig in [north, south] {
                let name = rig.kiosk.config.device.id
                let mine = try rig.kiosk.store.events().filter { $0.device == name }
                #expect(log.filter { $0.device == name }.count == mine.count)
                #expect(mine.allSatisfy { $0.sequence != nil && sequenceOf[$0.id] == $0.sequence })
            }
            // One queue: the server's and both kiosks'.
            let queue = try #require(server.queue(storeID))
            #expect(queue.waiting.map(\.code.description) == (3...torn).map { String(format: "A%03d", $0) })
            #expect(queue.inside == 2)  // A001, V001 (once), A002, one exit
            for rig in [north, south] {
                #expect(rig.kiosk.queue.snapshot == queue)
                #expect(rig.kiosk.queue.confirmedSnapshot == queue)
            }
            // The double admission, on the server and on both kiosks' status.
            #expect(queue.conflicts.map(\.code.description) == ["V001"])
            #expect(Set(queue.conflicts.flatMap { [$0.firstDoor, $0.secondDoor] }) == ["north", "south"])
            for rig in [north, south] {
                #expect(
                    await rig.wait(.seconds(5)) {
                        rig.kiosk.sync?.status.conflicts.map(\.code) == queue.conflicts.map(\.code)
                    }
                        != nil
                )
            }
        } catch {
            await south.stop()
            await north.stop()
            await server.stop()
            throw error
        }
        await south.stop()
        await north.stop()
        await server.stop()
    }
}
