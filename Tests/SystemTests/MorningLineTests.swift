import DeviceEmulators
import Foundation
import KioskCore
import ServiceSupport
import Testing

@testable import CLupServer
@testable import KioskStation
@testable import Rigs

/// The morning line, lived as a store lives it: kioskd itself (presenter printer, serial scanner) under
/// libfaketime, synced with clup-server shifted by the same seconds, so paper and app tickets are one line. The
/// store is open 07:00–21:00 Monday to Saturday and closed on Sunday, capacity 3.
///
/// - The evening: a ticket torn off at 20:59 and never used is yesterday's after closing; at 21:00 the presenter's
///   ticket goes back in and the next day's A001 comes out; a virtual ticket taken at night is the next day's, and
///   the presenter's A001, printed "Nobody ahead" before it, goes back in for an A002 that says "1 person ahead".
/// - The morning: three tear tickets at 06:59, two take virtual ones; nobody is called before 07:00 (the door
///   says when it opens and the holder's place), from 07:00 they are called in the order taken, and none is
///   refused as yesterday's.
/// - A closed Sunday calls nobody and admits nobody; the hours a manager changes reach the kiosk.
@Suite(.serialized) struct MorningLineTests {
    static func utc(_ day: Int, _ hour: Int, _ minute: Int, _ second: Int = 0) -> Timestamp {
        BusinessDay(year: 2026, month: 11, day: Int64(day)).instant(
            secondsAfterMidnight: hour * 3600 + minute * 60 + second,
            zone: .utc
        )
    }

    static var week: [Any] {
        Array(repeating: ["open": "07:00", "close": "21:00"] as Any, count: 6) + [NSNull()]
    }

    @Test(.enabled(if: FakeClockKioskd.ready, Comment(rawValue: FakeClockKioskd.skip)))
    func theEarlyLineIsCalledInOrderAtOpening() async throws {
        let offset = WallClock.Offset()
        let clock = WallClock.shifted(by: offset)
        // Monday 23 November 2026, 20:59:40 UTC (the store's zone).
        var seconds = FakeClockKioskd.seconds(to: Self.utc(23, 20, 59, 40))
        offset.shift(clock, bySeconds: seconds)
        let server = try await ServerRig(clock: clock)
        let storeID = try await server.registerStore(
            ["capacity": 3, "timeZone": "UTC", "openingHours": Self.week, "name": "Morning Market"]
        )
        let credential = try await server.enroll("entrance", store: storeID)
        let printer = try EmulatorRig(profile: "custom-vkp80iii")
        let scanner = try SerialScannerEmulator(suffix: .cr)
        let state = HIL.temporaryDirectory("morning")
        let port = try HIL.freePort()
        let config = try Self.config(
            state: state,
            printer: printer.tcpAddress,
            store: storeID,
            capacity: 3,
            server: server,
            credential: credential,
            port: port,
            door: """
                [door]
                enabled = true
                scanner = "serial://\(scanner.path)"
                """
        )
        let kioskd = FakeClockKioskd(config: config, port: port, state: state)
        defer {
            kioskd.stop()
            scanner.close()
            printer.stop()
            try? FileManager.default.removeItem(atPath: state)
        }
        func presented() -> String? { printer.emulator.tickets.last.flatMap(Self.code) }
        func takeApp() async throws -> (code: String, qr: String) {
            let answer = try await server.call("POST", "/v1/stores/\(storeID.uuidString)/tickets", token: nil)
            #expect(answer.status == 201, "\(answer.body)")
            let ticket = try #require(answer.body["ticket"] as? [String: Any])
            return (try #require(ticket["code"] as? String), try #require(answer.body["qr"] as? String))
        }
        func appStatus(_ qr: String) async throws -> [String: Any] {
            let verified = try TicketCodec.decode(
                qr,
                prefix: ServerApp.Options(adminToken: "").statusURL,
                keyRing: KeyRing([try #require(server.app.logs.store(storeID)).record.signer.publicKey]),
                store: storeID
            )
            return try await server.call("GET", "/v1/tickets/\(verified.ticket.uuidString)", token: nil).body
        }

        var late = (code: "", qr: "")
        do {
            // The evening: A001 torn off at 20:59 (called: the store has room), never used.
            try kioskd.start(shiftedBy: seconds)
            #expect(
                await kioskd.until(.seconds(20)) { $0.sync?.state == "online" && $0.printer?.state == .ready } != nil
            )
            let evening = try await printer.requireTickets(1)
            printer.emulator.simulate(.take)
            _ = try await printer.requireTickets(2)
            #expect(await kioskd.until { $0.queue.called == ["A001"] } != nil)

            // 21:00: closed. The presenter pulls A002 back; Tuesday's A001 comes out, saying when it opens.
            #expect(await kioskd.until(.seconds(30)) { !$0.queue.open && $0.queue.waiting == 0 } != nil)
            let night = try await printer.requireTickets(3, timeout: .seconds(10))
            #expect(printer.emulator.retractedTickets.map(\.number) == [2])
            #expect(Self.code(night[2]) == "A001")
            #expect(night[2].text.contains { $0.contains("Store opens at 07:00") }, "\(night[2].text)")
            let yesterday = try await kioskd.scan(evening[0].qrCodes[0], on: scanner)
            let door = await kioskd.status()?.door
            #expect(yesterday == "previous_day A001", "\(String(describing: door))")
            late = try await takeApp()
            #expect(late.code == "V001", "a virtual ticket at night is the next day's first")
            // A001 was printed "Nobody ahead" before V001 came: it goes back in, and A002 tells the truth.
            #expect(await kioskd.until(.seconds(20)) { $0.printer?.waitingTicket == "A002" } != nil)
            #expect(printer.emulator.retractedTickets.map(\.number) == [2, 3], "the 2nd and 3rd printed")
            #expect(printer.emulator.tickets.last?.text.contains { $0.contains("1 person ahead") } == true)
            let lateStatus = try await appStatus(late.qr)
            #expect(lateStatus["stage"] as? String == "waiting")
            #expect(lateStatus["opensAt"] as? Int == Int(Self.utc(24, 7, 0).milliseconds))
            // Scanned once the kiosk has it from the server (a sync away).
            #expect(await kioskd.until(.seconds(20)) { $0.queue.waiting == 1 } != nil)
            let lateScan = try await kioskd.scan(late.qr, on: scanner)
            let lateDoor = await kioskd.status()?.door
            #expect(lateScan == "closed V001", "\(String(describing: lateDoor))\n\(kioskd.logText)")
            #expect(await kioskd.lastMessage() == "the store opens at 07:00 — you are 1st in line")
        } catch {
            Issue.record("kioskd's log in the evening:\n\(kioskd.logText)")
            throw error
        }
        #expect(kioskd.stop() == 0)

        // Tuesday 06:59:10, kioskd started again on the same state.
        seconds = FakeClockKioskd.seconds(to: Self.utc(24, 6, 59, 10))
        offset.shift(clock, bySeconds: seconds)
        var paper: [PrintedTicket] = []
        var app: [(code: String, qr: String)] = []
        do {
            try kioskd.start(shiftedBy: seconds)
            #expect(
                await kioskd.until(.seconds(20)) { $0.sync?.state == "online" && $0.printer?.state == .ready } != nil
            )
            #expect(presented() == "A002", "the night's ticket still waits in the presenter")
            // Three customers tear tickets, two take virtual ones.
            for n in 1...3 {
                let printed = printer.emulator.ticketCount
                printer.emulator.simulate(.take)
                paper.append(try await printer.requireTickets(printed + 1)[printed - 1])
                #expect(Self.code(paper[n - 1]) == "A00\(n + 1)")
            }
            app = [try await takeApp(), try await takeApp()]
            #expect(app.map(\.code) == ["V002", "V003"])
            #expect(await kioskd.until { $0.queue.waiting == 6 } != nil, "V001, A002–A004, V002, V003")
            let beforeOpening = try #require(await kioskd.status())
            #expect(clock.now() < Self.utc(24, 7, 0), "the test was too slow to look before opening")
            #expect(beforeOpening.queue.called.isEmpty && !beforeOpening.queue.open)
            #expect(beforeOpening.queue.opensAt == "07:00")
            #expect(try await appStatus(app[0].qr)["stage"] as? String == "waiting")
            #expect(server.queue(storeID)?.called(at: clock.now()).isEmpty == true)
            #expect(try await kioskd.scan(paper[0].qrCodes[0], on: scanner) == "closed A002")

            // 07:00: called in the order taken, as far as capacity (3) allows; nobody is yesterday's.
            let opened = await kioskd.until(.seconds(70)) { $0.queue.open && !$0.queue.called.isEmpty }
            #expect(opened?.queue.called == ["V001", "A002", "A003"], "\(String(describing: opened?.queue))")
            #expect(try await appStatus(late.qr)["stage"] as? String == "called")
            #expect(try await appStatus(app[0].qr)["stage"] as? String == "waiting")
            #expect(try await kioskd.scan(paper[0].qrCodes[0], on: scanner) == "admit A002")
            #expect(try await kioskd.scan(late.qr, on: scanner) == "admit V001")
            #expect(try await kioskd.scan(paper[1].qrCodes[0], on: scanner) == "admit A003")
            #expect(try await kioskd.scan(paper[2].qrCodes[0], on: scanner) == "store_full A004")
        } catch {
            Issue.record("kioskd's log in the morning:\n\(kioskd.logText)")
            throw error
        }
        #expect(kioskd.stop() == 0)

        // Sunday 29 November, 10:00: closed all day. Monday's line forms; nobody is called or let in.
        seconds = FakeClockKioskd.seconds(to: Self.utc(29, 10, 0))
        offset.shift(clock, bySeconds: seconds)
        do {
            try kioskd.start(shiftedBy: seconds)
            #expect(
                await kioskd.until(.seconds(20)) { $0.sync?.state == "online" && $0.printer?.state == .ready } != nil
            )
            // Tuesday's waiting ticket goes back in; Monday's A001 comes out.
            #expect(await kioskd.until(.seconds(10)) { $0.printer?.waitingTicket == "A001" } != nil)
            let printed = printer.emulator.ticketCount
            printer.emulator.simulate(.take)
            let sunday = try await printer.requireTickets(printed + 1)[printed - 1]
            #expect(await kioskd.until { $0.queue.waiting == 1 && !$0.queue.open } != nil)
            #expect(try await kioskd.scan(sunday.qrCodes[0], on: scanner) == "closed \(Self.code(sunday) ?? "?")")
            #expect((await kioskd.status())?.queue.called == [])

            // The manager opens Monday at 08:00 instead (the console's settings, through the API): the kiosk
            // hears it with its next page of the log, and its door says so.
            var hours = Self.week
            hours[0] = ["open": "08:00", "close": "21:00"]
            let changed = try await server.call(
                "PATCH",
                "/v1/stores/\(storeID.uuidString)",
                json: ["openingHours": hours]
            )
            #expect(changed.status == 200, "\(changed.body)")
            #expect(await kioskd.until(.seconds(15)) { $0.queue.opensAt == "08:00" } != nil)
            _ = try await kioskd.scan(sunday.qrCodes[0], on: scanner)
            #expect(await kioskd.lastMessage() == "the store opens at 08:00 — you are 1st in line")
        } catch {
            Issue.record("kioskd's log on Sunday:\n\(kioskd.logText)")
            throw error
        }
        #expect(kioskd.stop() == 0)
        await server.stop()
    }

    /// A kiosk that never synced follows its configuration's hours: closed after `closing_time`, its door
    /// admits nobody and says when it opens.
    @Test func aKioskThatNeverSyncedFollowsItsConfiguration() async throws {
        let offset = WallClock.Offset()
        let clock = WallClock.shifted(by: offset)
        offset.move(clock, to: Self.utc(24, 20, 59, 58))
        let scanner = try SerialScannerEmulator(suffix: .cr)
        defer { scanner.close() }
        let rig = try StationRig(profile: "custom-vkp80iii", clock: clock) {
            $0.store.timeZone = .utc
            $0.store.hours = try! StoreHours.daily(
                open: TimeOfDay(hour: 7, minute: 0),
                close: TimeOfDay(hour: 21, minute: 0),
                closedDays: [6]
            )
            $0.door.enabled = true
            $0.door.scanner = "serial://\(scanner.path)"
        }
        do {
            let first = try await rig.requireTickets(1)
            await rig.customerTakes()
            _ = try await rig.requireTickets(2)
            #expect(await rig.wait(.seconds(10)) { !rig.kiosk.queue.snapshot.isOpen(at: clock.now()) } != nil)
            #expect(try await rig.scan(first[0].qrCodes[0], on: scanner) == "previous_day A001")
            // Tuesday's A001 waits for Wednesday 07:00.
            let next = try await rig.requireTickets(3)
            await rig.customerTakes()
            _ = try await rig.requireTickets(4)
            #expect(try await rig.scan(next[2].qrCodes[0], on: scanner) == "closed A001")
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    /// The configuration of the store's entrance kiosk `entrance`, synced with `server`, as the console's snippet
    /// installs it: the store's hours (open Monday to Saturday 07:00–21:00) until the first sync; `door` is the
    /// `[door]` table, if it has one.
    static func config(
        state: String,
        printer: String,
        store: StoreID,
        capacity: Int,
        server: ServerRig,
        credential: String,
        port: Int,
        door: String = ""
    ) throws -> String {
        try KioskdConfig.write(
            state: state,
            printer: printer,
            store: store,
            device: "entrance",
            zone: "UTC",
            httpPort: port,
            store: """
                capacity = \(capacity)
                hours = ["07:00-21:00", "07:00-21:00", "07:00-21:00", "07:00-21:00", "07:00-21:00", "07:00-21:00", "closed"]
                """,
            extra: door + """

                [sync]
                server = "\(server.url)"
                credential_file = "\(try KioskdConfig.credentialFile(credential, in: "\(state)/secret"))"
                pull_wait_seconds = 2
                """,
            logLevel: "info"
        )
    }

    /// The ticket number a printed ticket shows.
    static func code(_ ticket: PrintedTicket) -> String? {
        ticket.text.lazy.compactMap { $0.firstMatch(of: /[AV]\d{3}/).map { String($0.0) } }.first
    }
}
