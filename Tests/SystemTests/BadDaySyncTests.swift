import DeviceEmulators
import Drivers
import Foundation
import KioskCore
import ServiceSupport
import Testing

@testable import KioskStation
@testable import Rigs

/// Sync on a bad uplink, and the night between two business days.
@Suite(.serialized) struct BadDaySyncTests {
    /// A proxy loses one answer in five (the server did the work; the connection is closed instead of
    /// answered). Every tear-off still reaches the server's log within 10 s, once; every failed attempt is
    /// on the status with its cause; after the pull the replica holds no pending event the server has.
    @Test func tearOffsReachTheServerThroughALossyUplink() async throws {
        let server = try await ServerRig()
        let storeID = try await server.registerStore()
        let credential = try await server.enroll("entrance-printer", store: storeID)
        let proxy = try TCPProxy(upstream: server.port)
        proxy.loseAnswers(chance: 0.2)
        let rig = try StationRig(profile: "custom-vkp80iii") {
            $0.store.id = storeID
            $0.device.id = "entrance-printer"
            $0.sync.server = "http://127.0.0.1:\(proxy.port)"
            $0.store.timeZone = .standardStore  // as installed: no day guessed in UTC before the first sync
            $0.store.hours = .standardStore
            $0.sync.credential = credential
            $0.sync.pullWaitSeconds = 2
        }
        do {
            let count = Int(ProcessInfo.processInfo.environment["CLUP_BADDAY_SYNC_TEAROFFS"] ?? "") ?? 40
            var tornAt: [TicketID: ContinuousClock.Instant] = [:]
            var arrivedAfter: [TicketID: Duration] = [:]
            func noteArrivals() {
                guard let queue = server.queue(storeID) else { return }
                for (id, at) in tornAt where arrivedAfter[id] == nil {
                    if case .waiting = queue.stage(of: id) { arrivedAfter[id] = ContinuousClock.now - at }
                }
            }
            _ = try await rig.requireTickets(1)
            for n in 1...count {
                let waiting = try #require(try rig.kiosk.store.waitingTicket(prefix: "A"))
                try? await Task.sleep(for: .milliseconds(Int.random(in: 50...400)))
                rig.emulator.simulate(.take)
                tornAt[waiting.ticket.id] = .now
                let printed = ContinuousClock.now
                while rig.emulator.ticketCount <= n {
                    noteArrivals()
                    try await Task.sleep(for: .milliseconds(5))
                    if ContinuousClock.now - printed > .seconds(5) { break }
                }
            }
            let deadline = ContinuousClock.now + .seconds(15)
            while arrivedAfter.count < tornAt.count && ContinuousClock.now < deadline {
                noteArrivals()
                try await Task.sleep(for: .milliseconds(5))
            }
            let delays = arrivedAfter.values.sorted()
            #expect(delays.count == count, "\(count - delays.count) tear-offs never reached the server")
            let p50 = delays.isEmpty ? .zero : delays[delays.count / 2]
            let p99 = delays.isEmpty ? .zero : delays[min(delays.count * 99 / 100, delays.count - 1)]
            let worst = delays.last ?? .zero
            let lost = proxy.lostAnswers.withLock { $0 }
            print(
                "lossy uplink: \(count) tear-offs, \(lost) answers lost; in the server's log after p50 \(p50) p99 \(p99) max \(worst)"
            )
            #expect(worst <= .seconds(10), "a tear-off reached the server \(worst) after it was taken")
            #expect(lost > 0, "the proxy lost no answer: the test tested nothing")

            // Each taken once in the server's log, though pushes were repeated.
            let log = try await server.app.database.events(store: storeID, after: 0, limit: .max)
            let takes = log.filter { $0.kind == "ticketTaken" }
            #expect(takes.count == count)
            #expect(Set(takes.map(\.id)).count == takes.count)
            #expect(Set(takes.compactMap(\.ticketID)).count == takes.count)

            // The pull catches up: nothing the server has stays pending in the replica.
            proxy.loseAnswers(chance: 0)
            let end = { server.app.logs.store(storeID)?.lastSequence ?? -1 }
            let caughtUp = await rig.wait(.seconds(15)) {
                (try? rig.kiosk.store.outboxCount()) == 0 && rig.kiosk.sync?.status.lastSequence == end()
            }
            #expect(caughtUp != nil, "did not catch up: \(String(describing: rig.kiosk.sync?.status))")
            // Pending now is only the ticket printed after the last pull, if any: never one the server has.
            let serverIDs = Set(try await server.app.database.events(store: storeID, after: 0, limit: .max).map(\.id))
            let pending = try rig.kiosk.store.replicaEvents().pending
            #expect(pending.allSatisfy { !serverIDs.contains($0.id) })
            #expect(rig.kiosk.queue.pendingCount <= 1, "\(rig.kiosk.queue.pendingCount) events still pending")
            #expect(rig.kiosk.queue.snapshot.waiting == server.queue(storeID)?.waiting)
        } catch {
            proxy.stop()
            await rig.stop()
            await server.stop()
            throw error
        }
        proxy.stop()
        await rig.stop()
        await server.stop()
    }

    /// The evening and the next morning under one shifted clock (kiosk and server alike): the new day starts
    /// with nobody inside and nobody waiting, its first customer is admitted, and yesterday's tickets are refused
    /// as yesterday's — on the kiosk and in the server's queue.
    @Test func theNextMorningStartsAFreshDay() async throws {
        // Today 21:50 local (the store's zone is this box's offset now); the store opens at 07:00.
        let offset = WallClock.Offset()
        let zone = TimeZone.current.secondsFromGMT()
        let nowSeconds = Int64(Date().timeIntervalSince1970)
        let localDay = (nowSeconds + Int64(zone)).floorDivided(by: 86_400)
        let evening = (localDay * 86_400 + 21 * 3600 + 50 * 60 - Int64(zone)) * 1000
        offset.advance(by: .milliseconds(evening - Int64(Date().timeIntervalSince1970 * 1000)))
        let clock = WallClock.shifted(by: offset)

        let server = try await ServerRig(clock: clock)
        let storeID = try await server.registerStore(
            ["capacity": 3, "utcOffsetMinutes": zone / 60, "openingHours": ServerRig.hours("07:00", "22:00")]
        )
        let printerCredential = try await server.enroll("entrance-printer", store: storeID)
        let doorCredential = try await server.enroll("entrance-door", store: storeID)
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        func synced(_ config: inout KioskConfig, device: String, credential: String) {
            config.store.id = storeID
            config.store.capacity = 3
            config.store.hours = try! StoreHours.daily(
                open: TimeOfDay(hour: 7, minute: 0),
                close: TimeOfDay(hour: 22, minute: 0)
            )
            config.store.timeZone = StoreTimeZone(fixedOffsetSeconds: zone)
            config.device.id = device
            config.sync.server = server.url
            config.sync.credential = credential
            config.sync.pullWaitSeconds = 2
        }
        let printer = try StationRig(profile: "custom-vkp80iii", clock: clock) {
            synced(&$0, device: "entrance-printer", credential: printerCredential)
        }
        let door = try StationRig(profile: "custom-vkp80iii", clock: clock) {
            synced(&$0, device: "entrance-door", credential: doorCredential)
            $0.printer.enabled = false
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)"
        }
        do {
            let doorStation = try #require(door.kiosk.door)
            // The evening: six torn off, the first three let in.
            for n in 1...6 {
                try await printer.requireTickets(n)
                await printer.customerTakes()
            }
            let tickets = try await printer.requireTickets(7)
            let qr = tickets.map { $0.qrCodes.first ?? "" }
            #expect(await door.wait(.seconds(10)) { door.kiosk.queue.snapshot.waiting.count == 6 } != nil)
            #expect(await door.wait(.seconds(10)) { doorStation.keyRing.count >= 2 } != nil)
            #expect(await door.wait { doorStation.status.state == "ready" } != nil)
            func scan(_ payload: String) async throws -> String? { try await door.scan(payload, on: scanner) }
            for n in 0..<3 { #expect(try await scan(qr[n]) == "admit A00\(n + 1)") }
            #expect(try await scan(qr[3]) == "store_full A004")
            #expect(await door.wait(.seconds(10)) { server.queue(storeID)?.inside == 3 } != nil)

            // 08:05 the next morning.
            offset.advance(by: .seconds(10 * 3600 + 15 * 60))
            for (name, rig) in [("printer", printer), ("door", door)] {
                let fresh = await rig.wait(.seconds(5)) {
                    let queue = rig.kiosk.queue.snapshot
                    return queue.inside == 0 && queue.waiting.isEmpty
                }
                #expect(fresh != nil, "\(name) kiosk still shows yesterday: \(rig.kiosk.queue.snapshot.inside) inside")
            }
            let serverFresh = await door.wait(.seconds(5)) {
                server.queue(storeID).map { $0.inside == 0 && $0.waiting.isEmpty } ?? false
            }
            #expect(serverFresh != nil, "the server's queue still shows yesterday")
            #expect(server.queue(storeID)?.insideAtLastDayEnd == 3)

            // Yesterday's waiting ticket is refused as yesterday's. The one that waited in the printer overnight
            // goes back in (this presenter retracts) and a fresh A001 of the new day takes its place at once, and
            // gets in once taken.
            #expect(try await scan(qr[3]) == "previous_day A004")
            #expect(doorStation.status.last?.message.contains("earlier day") == true)
            let morning = try await printer.requireTickets(8)
            #expect(morning[7].text.contains { $0.contains("A001") }, "\(morning[7].text)")
            #expect(printer.emulator.retractedTickets.map(\.number) == [7])
            #expect(printer.station.status.ticketsRetracted == 1)
            // This presenter cannot tell a ticket it pulled back from one a customer took as it pulled: A007 is
            // set aside, never voided (no ticketCancelled anywhere); whoever holds it is let in.
            try await Task.sleep(for: .milliseconds(500))
            let log = try await server.app.database.events(store: storeID, after: 0, limit: .max)
            #expect(!log.contains { $0.kind == "ticketCancelled" }, "A007 was voided")
            #expect(try await scan(qr[6]) == "admit A007")
            await printer.customerTakes()
            _ = try await printer.requireTickets(9)
            #expect(try await scan(morning[7].qrCodes.first ?? "") == "admit A001")
            #expect(await door.wait(.seconds(10)) { server.queue(storeID)?.inside == 2 } != nil)
            // One day start in the server's log, though three parties wrote it.
            let days = try await server.app.database.events(store: storeID, after: 0, limit: .max)
            #expect(days.filter { $0.kind == "dayStarted" }.count == 2)  // the evening's day and the morning's
        } catch {
            await door.stop()
            await printer.stop()
            await server.stop()
            throw error
        }
        await door.stop()
        await printer.stop()
        await server.stop()
    }
}
