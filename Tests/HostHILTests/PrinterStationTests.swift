import DeviceEmulators
import Drivers
import Foundation
import KioskCore
import QRSymbol
import Testing

@testable import KioskStation
@testable import Rigs

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The printer station against the emulator on real interfaces (acceptance of the printer-station issue).
@Suite(.serialized) struct PrinterStationTests {
    /// 500 tear-offs → 500 distinct consecutive codes; every ticket's QR decodes (zbarimg) and verifies.
    @Test(
        .enabled(if: HIL.needs("zbarimg"), "zbarimg not installed (apt-get install zbar-tools; make test does it)"),
        arguments: [("custom-vkp80iii", "tcp"), ("citizen-ppu-700", "serial")]
    )
    func fiveHundredTearOffs(profile: String, transport: String) async throws {
        let rig = try StationRig(profile: profile, transport: transport)
        let count = Int(ProcessInfo.processInfo.environment["CLUP_TEAROFFS"] ?? "") ?? 500
        for n in 1...count {
            _ = try await rig.requireTickets(n, timeout: .seconds(10))
            await rig.customerTakes()
        }
        _ = try await rig.requireTickets(count + 1, timeout: .seconds(10))
        let tickets = rig.emulator.tickets
        let ring = try rig.keyRing()
        let decoded = try HIL.run(
            "zbarimg",
            ["--quiet", "--raw", "-Sdisable", "-Sqrcode.enable"] + tickets.compactMap(\.pngPath)
        )
        await rig.stop()

        #expect(tickets.count == count + 1)
        let codes = tickets.map { $0.text.first { TicketCode($0) != nil } ?? "?" }
        #expect(codes == (1...(count + 1)).map { TicketCode(prefix: "A", number: $0).description })
        #expect(rig.emulator.takenTickets.count == count)

        // Every PNG was decoded by zbarimg (one process for all); verify each signed code.
        let payloads = decoded.output.split(separator: "\n").map(String.init)
        #expect(payloads.count == tickets.count)
        var seen: Set<TicketID> = []
        for (payload, code) in zip(payloads, codes) {
            let claims = try TicketCodec.decode(
                payload,
                prefix: "HTTPS://CLUP.EXAMPLE/T/",
                keyRing: ring,
                store: StationRig.store
            )
            #expect(claims.code.description == code)
            #expect(seen.insert(claims.ticket).inserted, "ticket id \(claims.ticket) printed twice")
            #expect(QRMatrixCheck.version(payload) <= 8)
        }
    }

    @Test func statusEndpointShowsThePrinterAndTheQueue() async throws {
        try await StationRig.with(profile: "custom-vkp80iii") { rig in
            _ = try await rig.requireTickets(1, timeout: .seconds(10))
            await rig.customerTakes()
            _ = try await rig.requireTickets(2, timeout: .seconds(10))
            // Cut at the emulator, then confirmed by the station's status query: ready only after that.
            #expect(await rig.wait { rig.station.status.state == .ready } != nil)
            let port = try #require(rig.kiosk.httpPort.wait())
            let status = try await fetchStatus(port: port)
            #expect(status.printer?.state == .ready)
            #expect(status.printer?.waitingTicket == "A002")
            #expect(status.printer?.lastTaken == "A001")
            #expect(status.printer?.ticketsToday == 2)
            #expect(status.queue.waiting == 1 && status.queue.next == ["A001"])

            // The control API tears the ticket off without a sensor.
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/printer/take")!)
            request.httpMethod = "POST"
            let (_, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 202)
            _ = try await rig.requireTickets(3, timeout: .seconds(10))
        }
    }

    static let faults: [(name: String, on: PhysicalEvent, off: PhysicalEvent, condition: String)] = [
        ("paper end", .paperEnd(true), .paperEnd(false), "paper_end"),
        ("cover open", .coverOpen(true), .coverOpen(false), "cover_open"),
        ("offline", .offline(true), .offline(false), "offline"),
    ]

    /// A fault in the middle of a ticket: reported ≤ 1 s, printing resumes ≤ 2 s after it clears, and the
    /// interrupted ticket comes out whole, once, with the same code.
    @Test(arguments: 0..<faults.count)
    func faultDuringAPrint(_ index: Int) async throws {
        let fault = Self.faults[index]
        try await StationRig.with(profile: "custom-vkp80iii") { rig in
            _ = try await rig.requireTickets(1, timeout: .seconds(10))
            rig.emulator.simulate(.during(fault.on, afterBytes: 60))
            await rig.customerTakes()
            let reported = await rig.wait(.seconds(3)) { rig.station.status.conditions.contains(fault.condition) }
            let delay = try #require(reported, "\(fault.name) not reported on the status")
            #expect(delay <= .seconds(1), "\(fault.name) reported after \(delay)")
            #expect(rig.station.status.state == .fault)
            #expect(rig.station.status.action?.isEmpty == false)
            #expect(rig.emulator.ticketCount == 1)

            rig.emulator.simulate(fault.off)
            let cleared = ContinuousClock.now
            _ = try await rig.requireTickets(2, timeout: .seconds(5))
            let resumed = ContinuousClock.now - cleared
            #expect(resumed <= .seconds(2), "printing resumed \(resumed) after the fault cleared")
            let second = rig.emulator.tickets[1]
            #expect(second.text.contains("A002"), "the interrupted ticket was not reprinted with its code")
            #expect(await rig.wait(.seconds(2)) { rig.station.status.state == .ready } != nil)
            // Exactly one complete A002; the next ticket after a take is A003.
            await rig.customerTakes()
            _ = try await rig.requireTickets(3, timeout: .seconds(5))
            #expect(rig.emulator.tickets[2].text.contains("A003"))
            #expect(rig.emulator.tickets.filter { $0.text.contains("A002") }.count == 1)
        }
    }

    /// Every profile with a paper sensor: the roll ends in the middle of a ticket, paper is loaded, and the
    /// interrupted ticket comes out whole and once (the stale job cleared first), its code neither repeated
    /// nor skipped; the status names the paper meanwhile. A printer without a presenter is torn off through
    /// the control API (what its kiosk's button does). Each ticket says what stays true on that printer.
    @Test(arguments: PrinterProfile.bundledIDs)
    func paperLoadedMidTicketNeitherRepeatsNorSkips(profile name: String) async throws {
        let profile = try PrinterProfile.load(named: name)
        try await StationRig.with(profile: name) { rig in
            func take() async {
                if profile.presenter {
                    await rig.customerTakes()
                } else {
                    rig.station.requestTake()
                }
            }
            _ = try await rig.requireTickets(1, timeout: .seconds(10))
            rig.emulator.simulate(.during(.paperEnd(true), afterBytes: 60))
            await take()
            let reported = await rig.wait(.seconds(3)) { rig.station.status.conditions.contains("paper_end") }
            #expect(reported != nil, "\(name): paper end not reported")
            #expect(rig.station.status.action?.contains("paper") == true, "\(rig.station.status.action ?? "no action")")
            #expect(rig.emulator.ticketCount == 1)

            rig.emulator.simulate(.paperEnd(false))
            _ = try await rig.requireTickets(2, timeout: .seconds(5))
            await take()
            _ = try await rig.requireTickets(3, timeout: .seconds(5))
            let codes = rig.emulator.tickets.map { ticket in
                ["A001", "A002", "A003", "A004"].filter { ticket.text.contains($0) }
            }
            #expect(codes == [["A001"], ["A002"], ["A003"]], "\(name): \(codes)")
            // What waits to be torn off stays true: a printer that can pull it back says the place and the
            // wait (it reprints a ticket whose promise breaks), one that cannot says where to follow the place.
            let retracts = profile.presenter && profile.retract != nil
            for ticket in rig.emulator.tickets {
                #expect(ticket.text.contains { $0.contains("ahead") } == retracts, "\(name): \(ticket.text)")
                // (Broken between words on 58 mm paper.)
                let words = ticket.text.joined(separator: " ")
                #expect(words.contains("Scan the code to follow your place") != retracts, "\(name): \(ticket.text)")
            }
        }
    }

    /// The printer goes away (power, cable) in the middle of a ticket and comes back.
    @Test func disconnectDuringAPrint() async throws {
        try await StationRig.with(profile: "custom-vkp80iii") { rig in
            _ = try await rig.requireTickets(1, timeout: .seconds(10))
            rig.printerRig.tcp.stop()
            await rig.customerTakes()
            let reported = await rig.wait(.seconds(3)) { rig.station.status.state == .disconnected }
            #expect(try #require(reported) <= .seconds(1))
            let endpoint = try TCPEndpoint(
                emulator: rig.emulator,
                port: rig.printerRig.tcp.port,
                logger: .init(label: "t")
            )
            defer { endpoint.stop() }
            let back = ContinuousClock.now
            _ = try await rig.requireTickets(2, timeout: .seconds(5))
            #expect(ContinuousClock.now - back <= .seconds(2))
            #expect(rig.emulator.tickets[1].text.contains("A002"))
        }
    }

    func fetchStatus(port: Int) async throws -> StationStatus {
        let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/status")!)
        return try JSONDecoder().decode(StationStatus.self, from: data)
    }
}

/// The QR version a payload needs at ECC M (what the printer's GS ( k will make).
enum QRMatrixCheck {
    static func version(_ payload: String) -> Int {
        (try? QRMatrix.encode(Array(payload.utf8), errorCorrection: .medium).version) ?? 99
    }
}
