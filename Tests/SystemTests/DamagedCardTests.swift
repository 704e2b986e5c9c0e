import DeviceEmulators
import Foundation
import GRDB
import KioskCore
import Synchronization
import Testing

@testable import CLupServer
@testable import KioskStation
@testable import Rigs
@testable import StationStore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// kioskd as its own process, syncing with the real clup-server, started on a database the card damaged (its
/// pages overwritten with garbage): it starts rather than crash-loop, keeps the damaged file aside, says so in
/// `/status`, the manager page's notice and a metric, rebuilds the line from the server's log, and prints codes
/// that none printed before the damage had.
@Suite(.serialized) struct DamagedCardTests {
    @Test(.enabled(if: FakeClockKioskd.ready, Comment(rawValue: FakeClockKioskd.skip)))
    func aDamagedDatabaseIsSetAsideAndTheLineRebuiltFromTheServer() async throws {
        let server = try await ServerRig()
        let rig = try EmulatorRig(profile: "custom-vkp80iii")
        defer { rig.stop() }
        let state = HIL.temporaryDirectory("damaged-card")
        defer { try? FileManager.default.removeItem(atPath: state) }
        var kioskd: FakeClockKioskd?
        do {
            let storeID = try await server.registerStore(["capacity": 2])
            let credential = try await server.enroll("damaged-entrance", store: storeID)
            let port = try HIL.freePort()
            let config = try KioskdConfig.write(
                state: state,
                printer: rig.tcpAddress,
                store: storeID,
                device: "damaged-entrance",
                // The store's zone as installed: counting days in UTC until its first sync, a kiosk started
                // between 23:00 and midnight UTC printed its first tickets on another day than the server's.
                zone: StoreTimeZone.standardStore.identifier,
                httpPort: port,
                store: "capacity = 2",
                extra: """
                    [sync]
                    server = "\(server.url)"
                    credential_file = "\(try KioskdConfig.credentialFile(credential, in: state))"
                    pull_wait_seconds = 2
                    """,
                logLevel: "info"
            )
            let process = FakeClockKioskd(config: config, port: port, state: state)
            kioskd = process

            // Six tickets torn off and pushed: two called, four waiting.
            try process.start(shiftedBy: 0)
            for n in 1...6 {
                _ = try await rig.requireTickets(n)
                try await Task.sleep(for: .milliseconds(60))
                rig.emulator.simulate(.take)
            }
            _ = try await rig.requireTickets(7)
            let before = try #require(
                await process.until(.seconds(20)) { $0.queue.waiting == 6 && $0.queue.pendingEvents == 0 },
                "the six tickets did not reach the server"
            )
            #expect(before.databaseDamage == nil)
            #expect(process.stop() == 0)

            let ring = { try await server.app.logs.keyRing(of: storeID).filter { $0.device == "damaged-entrance" } }
            let key = try await ring().map(\.key.rawRepresentation)

            // The card damages the pages of the events and the printed tickets, in the database file itself (its
            // write-ahead log, which kioskd leaves at exit, is checkpointed into it first).
            let path = "\(state)/kioskd.sqlite"
            try LocalStore.checkpoint(path)
            let damaged = try LocalStore.overwritePages(of: ["events", "printed_tickets"], in: path)
            #expect(damaged >= 4, "only \(damaged) pages damaged")

            try process.start(shiftedBy: 0)
            let rebuilt = await process.until(.seconds(20)) {
                $0.databaseDamage != nil && $0.queue.waiting == 6 && $0.sync?.error == nil
            }
            let seen = await process.status()
            let status = try #require(rebuilt, "not rebuilt from the server: \(String(describing: seen))")
            let damage = try #require(status.databaseDamage)
            #expect(process.isRunning)
            #expect(FileManager.default.fileExists(atPath: try #require(damage.keptAs)))
            #expect(damage.numberedAbove == "A100")
            // The tickets customers hold stay honoured: the signing key was carried over, the server's ring kept it.
            #expect(damage.carriedOver.contains("the signing key"), "\(damage)")
            #expect(try await ring().map(\.key.rawRepresentation) == key && key.count == 1)
            #expect(status.queue.notice == damage.sentence)
            #expect(status.queue.next == before.queue.next && status.queue.called == before.queue.called)
            let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
            #expect(String(decoding: data, as: UTF8.self).contains("clup_database_damaged 1"))

            // New tickets: numbered above the reserved block, no code printed twice.
            let printed = rig.emulator.ticketCount
            rig.emulator.simulate(.take)
            _ = try await rig.requireTickets(printed + 1)
            try await Task.sleep(for: .milliseconds(60))
            rig.emulator.simulate(.take)
            let tickets = try await rig.requireTickets(printed + 2)
            let codes = tickets.compactMap { ticket in ticket.text.first { TicketCode($0) != nil } }
            #expect(Set(codes).count == codes.count, "a code printed twice: \(codes)")
            #expect(codes.suffix(2).allSatisfy { (TicketCode($0)?.number ?? 0) > 100 }, "\(codes)")
            #expect(process.logText.contains("The kiosk's database was damaged"))
            #expect(process.stop() == 0)
        } catch {
            if let kioskd { Issue.record("kioskd's log:\n\(kioskd.logText)") }
            kioskd?.stop()
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// The card goes bad under the running kiosk: the first read that meets the damage stops the kiosk's
    /// services (kioskd then exits 75, and systemd starts it again), and the next start sets the file aside and
    /// prints on, above every code reserved before.
    @Test func damageMetWhileRunningStopsTheKioskAndTheNextStartGoesOn() async throws {
        let rig = try StationRig(profile: "custom-vkp80iii")
        let stopped = Mutex(false)
        let running = rig.task
        let watcher = Task {
            _ = try? await running.value
            stopped.withLock { $0 = true }
        }
        defer { watcher.cancel() }
        do {
            try await rig.requireTickets(1)
            await rig.customerTakes()
            try await rig.requireTickets(2)
            let store = rig.kiosk.store
            try store.db.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            #expect(try LocalStore.overwritePages(of: ["events"], in: store.path) > 0)
            store.db.queue.releaseMemory()
            #expect(throws: (any Error).self) { try store.events() }
            #expect(await rig.wait(.seconds(10)) { stopped.withLock { $0 } } != nil, "the kiosk ran on")
            #expect(store.damageSeen != nil)

            let directory = (store.path as NSString).deletingLastPathComponent
            let (next, damage) = try LocalStore.open(directory: directory)
            let report = try #require(damage)
            #expect(report.found.hasPrefix("met while running") && report.numberedAbove == "A100")
            #expect(try next.integrityCheck() == ["ok"])
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }
}
