import Drivers
import Foundation
import KioskCore
import Logging
import Testing

@testable import DeviceEmulators

/// Large print for people with low vision: on every shipped profile the number prints bigger than on a normal
/// ticket, the people ahead and the wait print on lines of their own in double height, and no line is wider
/// than the paper (the emulator wraps a line that is, as a printer does: its text would then break apart).
@Suite struct LargePrintTests {
    let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    func printout(_ profile: PrinterProfile, large: Bool, opensAt: String? = nil) -> TicketPrintout {
        var printout = TicketPrintout(
            storeName: "Mercato Centrale",
            code: TicketCode(prefix: "BV", number: 9999),
            qrPayload: "HTTPS://CLUP.EXAMPLE/T/0123456789ABCDEF",
            peopleAhead: 128,
            estimatedWait: .seconds(125 * 60),
            estimatedRange: .seconds(98 * 60)...(.seconds(160 * 60)),
            printedAt: "26.11.2026 18:40",
            opensAt: opensAt
        )
        printout.largePrint = large
        printout.columns = profile.columns
        return printout
    }

    /// The ticket as the emulator prints it (its PNGs in `CLUP_TICKET_PNGS` when set, to look at).
    func printed(_ printout: TicketPrintout, on profile: PrinterProfile) throws -> PrintedTicket {
        let kind = (printout.largePrint ? "large" : "normal") + (printout.opensAt == nil ? "" : "-closed")
        let folder = ProcessInfo.processInfo.environment["CLUP_TICKET_PNGS"].map { "\($0)/\(profile.id)-\(kind)" }
        let emulator = try PrinterEmulator(profile: profile, outputDirectory: folder, logger: logger)
        _ = emulator.receive(try EscPosEncoder(profile: profile).encode(TicketLayout.document(printout)))
        return try #require(emulator.tickets.first)
    }

    @Test(arguments: PrinterProfile.bundledIDs)
    func largePrintStaysOnThePaper(_ id: String) throws {
        let profile = try PrinterProfile.load(named: id)
        for opensAt in [nil, "Monday 07:00"] {
            let large = try printed(printout(profile, large: true, opensAt: opensAt), on: profile)
            let normal = try printed(printout(profile, large: false, opensAt: opensAt), on: profile)
            // Every word whole (no line wider than the paper, which would break mid-word), in order.
            let wait = opensAt == nil ? "about 125 min (98–160)" : "about 125 min after opening (98–160)"
            let expected =
                ["Mercato Centrale", "BV9999"] + (opensAt.map { ["Store opens at \($0)"] } ?? [])
                + ["128 people ahead", wait, TicketLanguagesTests.walkBack, "26.11.2026 18:40"]
            let words = large.text.filter { !$0.isEmpty }.flatMap { $0.split(separator: " ").map(String.init) }
            #expect(words == expected.flatMap { $0.split(separator: " ").map(String.init) }, "\(id): \(large.text)")
            #expect(large.image.width == profile.dotsPerLine)
            // Bigger: the large ticket is longer than the normal one by more than the extra line.
            #expect(
                large.image.height > normal.image.height + 48,
                "\(id): \(large.image.height) vs \(normal.image.height)"
            )
        }
    }

    @Test func theNumberGrowsAsFarAsThePaperAllows() throws {
        let narrow = try PrinterProfile.load(named: "generic-58mm")
        let document = TicketLayout.document(printout(narrow, large: true))
        let code = document.blocks.compactMap { block -> TextStyle? in
            if case .text("BV9999", let style) = block { return style }
            return nil
        }
        // 32 columns: six characters at 5× fill 30 of them; a normal ticket prints them at 4×.
        #expect(code == [TextStyle(bold: true, widthScale: 5, heightScale: 6, alignment: .center)])
    }
}
