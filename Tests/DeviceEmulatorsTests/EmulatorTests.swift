import Drivers
import Foundation
import KioskCore
import Logging
import Testing

@testable import DeviceEmulators

@Suite struct EmulatorTests {
    let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test func rendersTextAndCountsTickets() throws {
        let profile = try PrinterProfile.load(named: "generic-80mm")
        let emulator = try PrinterEmulator(profile: profile, logger: logger)
        let bytes = try EscPosEncoder(profile: profile).encode(
            PrintDocument([.text("Zürich 5€"), .text("BIG", TextStyle(widthScale: 3, heightScale: 3)), .cut()])
        )
        #expect(emulator.receive(bytes).isEmpty)
        let ticket = try #require(emulator.tickets.first)
        #expect(ticket.text.prefix(2) == ["Zürich 5€", "BIG"])
        #expect(ticket.bytes == bytes)
        #expect(ticket.image.width == 576)
        #expect(ticket.image.blackPixelCount > 500)
        #expect(emulator.ticketCount == 1)
    }

    @Test func answersStatusLikeTheProfileForEveryFault() throws {
        for id in PrinterProfile.bundledIDs {
            let profile = try PrinterProfile.load(named: id)
            let emulator = try PrinterEmulator(profile: profile, logger: logger)
            let faults: [(PhysicalEvent, PhysicalEvent, StatusCondition)] = [
                (.paperEnd(true), .paperEnd(false), .paperEnd),
                (.paperNearEnd(true), .paperNearEnd(false), .paperNearEnd),
                (.coverOpen(true), .coverOpen(false), .coverOpen),
                (.offline(true), .offline(false), .offline),
                (.cutterError(true), .cutterError(false), .cutterError),
            ]
            for (on, off, condition) in faults {
                emulator.simulate(on)
                #expect(query(emulator, profile)[condition], "\(id): \(on) not reported")
                emulator.simulate(off)
                #expect(!query(emulator, profile)[condition], "\(id): \(off) still reported")
            }
        }
    }

    func query(_ emulator: PrinterEmulator, _ profile: PrinterProfile) -> PrinterStatus {
        var decoder = StatusDecoder(map: profile.status)
        var request: [UInt8] = []
        for source in profile.statusQueries.sorted(by: { $0.rawValue < $1.rawValue }) {
            request += EscPos.request(source)
            decoder.expect(source)
        }
        var status = PrinterStatus()
        for case .report(let report) in decoder.feed(emulator.receive(request)) { status.apply(report) }
        return status
    }

    @Test func presenterHoldsTheTicketUntilTaken() throws {
        let profile = try PrinterProfile.load(named: "custom-vkp80iii")
        let emulator = try PrinterEmulator(profile: profile, logger: logger)
        #expect(!query(emulator, profile)[.ticketPresent])
        _ = emulator.receive(try EscPosEncoder(profile: profile).encode(PrintDocument([.text("1"), .cut()])))
        #expect(query(emulator, profile)[.ticketPresent])
        emulator.simulate(.take)
        #expect(!query(emulator, profile)[.ticketPresent])
        #expect(emulator.takeCount == 1)
    }

    /// The profile's retract command pulls the presented ticket back in (reported by the control language);
    /// the other presenter's command, or a retract with nothing presented, does nothing; a command's argument is
    /// never printed as text.
    @Test func theProfilesRetractCommandPullsThePresentedTicketIn() throws {
        for (id, own, other) in [
            ("citizen-ppu-700", [0x1D, 0x52, 0x30], [0x1D, 0x65, 0x02]),
            ("custom-vkp80iii", [0x1D, 0x65, 0x02], [0x1D, 0x52, 0x30]),
        ] as [(String, [UInt8], [UInt8])] {
            let profile = try PrinterProfile.load(named: id)
            let emulator = try PrinterEmulator(profile: profile, logger: logger)
            _ = emulator.receive(own)
            #expect(emulator.retractedTickets.isEmpty, "\(id): nothing presented, nothing retracted")
            _ = emulator.receive(try EscPosEncoder(profile: profile).encode(PrintDocument([.text("1"), .cut()])))
            _ = emulator.receive(other + [0x1D, 0x52, 0x31, 0x05])  // the other's retract; GS R 1 n: a timer
            #expect(query(emulator, profile)[.ticketPresent], "\(id): another model's command is not a retract")
            _ = emulator.receive(own)
            #expect(!query(emulator, profile)[.ticketPresent], "\(id)")
            #expect(emulator.retractedTickets.map(\.number) == [1] && emulator.takeCount == 0)
            #expect(EmulatorControl.execute("retracted", on: emulator) == "ok 1 1")
            _ = emulator.receive(try EscPosEncoder(profile: profile).encode(PrintDocument([.text("2"), .cut()])))
            #expect(emulator.tickets.last?.text.first == "2", "\(id): no command byte printed as text")
        }
    }

    @Test func printDataWaitsWhileStoppedAndPrintsAfter() throws {
        let profile = try PrinterProfile.load(named: "epson-tm-t88")
        let emulator = try PrinterEmulator(profile: profile, logger: logger)
        emulator.simulate(.coverOpen(true))
        let ticket = try EscPosEncoder(profile: profile).encode(PrintDocument([.text("held"), .cut()]))
        // A status request in the middle of held data is still answered at once.
        let reply = emulator.receive(ticket + EscPos.request(.dleEot2))
        #expect(reply == [0x16])  // cover open, fixed bits 0x12
        #expect(emulator.ticketCount == 0)
        emulator.simulate(.coverOpen(false))
        #expect(emulator.ticketCount == 1)
        #expect(emulator.tickets.first?.text.first == "held")
    }

    @Test func asbPushesOnEnableAndOnEveryChange() throws {
        let profile = try PrinterProfile.load(named: "citizen-ppu-700")
        let emulator = try PrinterEmulator(profile: profile, logger: logger)
        let pushed = PushLog()
        _ = emulator.attach { pushed.append($0) }
        _ = emulator.receive(EscPos.automaticStatusBack(EscPos.asbAll))
        emulator.simulate(.paperEnd(true))
        emulator.simulate(.paperEnd(true))  // no change: no push
        emulator.simulate(.paperEnd(false))
        var decoder = StatusDecoder(map: profile.status)
        let reports = decoder.feed(pushed.bytes).compactMap { if case .report(let r) = $0 { r } else { nil } }
        #expect(reports.map(\.source) == [.asb, .asb, .asb])
        #expect(reports.map { $0.conditions[.paperEnd] } == [false, true, false])
    }

    @Test func controlLanguage() throws {
        let emulator = try PrinterEmulator(profile: try PrinterProfile.load(named: "citizen-ppu-700"), logger: logger)
        #expect(EmulatorControl.execute("paper-end on", on: emulator) == "ok paper-end on")
        #expect(EmulatorControl.execute("status", on: emulator) == "ok paper_end,offline,paper_near_end")
        #expect(EmulatorControl.execute("paper-end off", on: emulator) == "ok paper-end off")
        #expect(EmulatorControl.execute("status", on: emulator) == "ok ready")
        #expect(EmulatorControl.execute("cover maybe", on: emulator).hasPrefix("error: unknown command"))
        #expect(EmulatorControl.execute("tickets", on: emulator) == "ok 0 -")
    }

    /// `tickets` tells other processes when the last cut arrived (the USB rig measures tear-off latency by it).
    @Test func controlReportsWhenTheLastTicketWasCut() throws {
        let profile = try PrinterProfile.load(named: "citizen-ppu-700")
        let emulator = try PrinterEmulator(profile: profile, logger: logger)
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        _ = emulator.receive(try EscPosEncoder(profile: profile).encode(PrintDocument([.text("1"), .cut()])))
        let after = Int64(Date().timeIntervalSince1970 * 1000)
        let words = EmulatorControl.execute("tickets", on: emulator).split(separator: " ")
        #expect(words.count == 4 && words[0] == "ok" && words[1] == "1" && words[2] == "-")
        let cutMs = try #require(words.count == 4 ? Int64(words[3]) : nil)
        #expect(cutMs >= before && cutMs <= after)
    }

    @Test func pngHasSignatureAndSize() {
        var bitmap = Bitmap(width: 9, height: 3)
        bitmap[8, 2] = true
        let png = PNGWriter.encode(bitmap)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(Array(png[16..<24]) == [0, 0, 0, 9, 0, 0, 0, 3])  // IHDR width, height
        #expect(png[24] == 1)  // 1 bit per pixel
    }

    @Test func consoleFontHasThePrinterCharacters() throws {
        let fonts = try TicketRenderer.Fonts.load()
        #expect(fonts.regular.width == 12 && fonts.regular.height == 24)
        for scalar in "A€ąłß·—".unicodeScalars {
            #expect(fonts.regular.glyph(for: scalar) != nil, "no glyph for \(scalar)")
        }
        #expect(fonts.regular.glyph(for: "A")!.blackPixelCount > 10)
    }
}

/// Collects pushed bytes from the emulator's sink (called on the caller's thread here).
final class PushLog: @unchecked Sendable {
    // @unchecked Sendable: used from one test thread only; the emulator calls sinks synchronously.
    private(set) var bytes: [UInt8] = []
    func append(_ more: [UInt8]) { bytes += more }
}
