import Drivers
import Foundation
import KioskCore
import Logging
import Testing

@testable import DeviceEmulators

/// A ticket in the store's languages (its settings on clup-server): the main language's words in bold, a
/// second language's below them, on every shipped profile and in large print, every word whole on the paper
/// as the emulator prints it.
@Suite struct TicketLanguagesTests {
    let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    func words(
        _ languages: [SpokenLanguage],
        ahead: Int,
        large: Bool,
        opensAt: String?,
        opensOn: Int? = nil,
        paused: (Bool, String?) = (false, nil),
        placeAtTearOff: Bool = false,
        on profile: PrinterProfile
    )
        throws -> [String]
    {
        var printout = TicketPrintout(
            storeName: "Mercato Centrale",
            code: TicketCode(prefix: "A", number: 42),
            qrPayload: "HTTPS://CLUP.EXAMPLE/T/0123456789ABCDEF",
            peopleAhead: ahead,
            estimatedWait: .seconds(ahead == 0 ? 0 : 25 * 60),
            estimatedRange: ahead == 0 ? nil : .seconds(18 * 60)...(.seconds(32 * 60)),
            printedAt: "28.11.2026 10:40",
            opensAt: opensAt
        )
        printout.largePrint = large
        printout.opensOn = opensOn
        (printout.paused, printout.pausedUntil) = paused
        printout.placeAtTearOff = placeAtTearOff
        printout.columns = profile.columns
        printout.languages = languages
        let emulator = try PrinterEmulator(profile: profile, logger: logger)
        _ = emulator.receive(try EscPosEncoder(profile: profile).encode(TicketLayout.document(printout)))
        let ticket = try #require(emulator.tickets.first)
        return ticket.text.filter { !$0.isEmpty }.flatMap { $0.split(separator: " ").map(String.init) }
    }

    /// The line a ticket with a wait ahead gains in its main language: the page says when to walk back.
    static let walkBack = "Follow it on your phone: we tell you when to walk back"
    static let walkBackItalian = "Seguilo sul telefono: ti diciamo quando tornare"

    func split(_ lines: [String]) -> [String] { lines.flatMap { $0.split(separator: " ").map(String.init) } }

    /// A ticket printed while staff paused the calls says so, and never "go to the door" (nobody is called); its
    /// holder may walk away meanwhile (the page says when to walk back), and only one with nobody ahead in an open
    /// line is told to go to the door, without that line.
    @Test(arguments: PrinterProfile.bundledIDs)
    func aTicketPrintedDuringAPauseSaysSo(_ id: String) throws {
        let profile = try PrinterProfile.load(named: id)
        let until = try words(
            [.italian, .english],
            ahead: 3,
            large: false,
            opensAt: nil,
            paused: (true, "10:55"),
            on: profile
        )
        let expected = [
            "Mercato Centrale", "A042", "Chiamate sospese fino alle 10:55", "3 persone davanti · circa 25 min (18–32)",
            Self.walkBackItalian, "Calls paused until 10:55", "3 people ahead · about 25 min (18–32)",
            "28.11.2026 10:40",
        ]
        #expect(until == split(expected), "\(id)")
        let open = try words([.english], ahead: 0, large: false, opensAt: nil, paused: (true, nil), on: profile)
        let first = [
            "Mercato Centrale", "A042", "Calls paused for a moment", "Nobody ahead · wait for your call", Self.walkBack,
        ]
        #expect(open == split(first + ["28.11.2026 10:40"]), "\(id)")
    }

    /// A printer that cannot pull a ticket back prints only what stays true while it waits to be torn off: no
    /// people ahead, wait or pause, which app tickets or staff may change before then; the opening stays.
    @Test(arguments: PrinterProfile.bundledIDs)
    func aTicketThatCannotGoBackSaysOnlyWhatStaysTrue(_ id: String) throws {
        let profile = try PrinterProfile.load(named: id)
        for large in [false, true] {
            let printed = try words(
                [.italian, .english],
                ahead: 3,
                large: large,
                opensAt: "07:00",
                paused: (true, "10:55"),
                placeAtTearOff: true,
                on: profile
            )
            let expected = [
                "Mercato Centrale", "A042", "Il negozio apre alle 07:00", "Inquadra il codice per seguire il tuo turno",
                "Store opens at 07:00", "Scan the code to follow your place", "28.11.2026 10:40",
            ]
            #expect(printed == split(expected), "\(id) large \(large)")
        }
    }

    @Test(arguments: PrinterProfile.bundledIDs)
    func italianFirstThenEnglish(_ id: String) throws {
        let profile = try PrinterProfile.load(named: id)
        for large in [false, true] {
            let printed = try words([.italian, .english], ahead: 3, large: large, opensAt: nil, on: profile)
            let italian =
                large ? ["3 persone davanti", "circa 25 min (18–32)"] : ["3 persone davanti · circa 25 min (18–32)"]
            let expected =
                ["Mercato Centrale", "A042"] + italian + [
                    Self.walkBackItalian, "3 people ahead · about 25 min (18–32)", "28.11.2026 10:40",
                ]
            #expect(printed == split(expected), "\(id) large \(large)")
        }
        let closed = try words([.italian, .english], ahead: 0, large: false, opensAt: "07:00", on: profile)
        let expected = [
            "Mercato Centrale", "A042", "Il negozio apre alle 07:00", "Nessuno davanti · chiamato all'apertura",
            Self.walkBackItalian, "Store opens at 07:00", "Nobody ahead · called at opening", "28.11.2026 10:40",
        ]
        #expect(closed == split(expected), "\(id)")
        // Opening a day or more away: the weekday named in each language.
        let monday = try words([.italian, .english], ahead: 0, large: false, opensAt: "07:00", opensOn: 0, on: profile)
        #expect(
            monday.prefix(9) == split(["Mercato Centrale", "A042", "Il negozio apre lunedi alle 07:00"])[...],
            "\(id): \(monday)"
        )
        #expect(monday.joined(separator: " ").contains("Store opens Monday at 07:00"), "\(id): \(monday)")
    }

    @Test func oneLanguageAloneAndEnglishWhenNoneIsGiven() throws {
        let profile = try PrinterProfile.load(named: "citizen-ppu-700")
        let italian = try words([.italian], ahead: 0, large: false, opensAt: nil, on: profile)
        #expect(
            italian == split(["Mercato Centrale", "A042", "Nessuno davanti · vai all'ingresso", "28.11.2026 10:40"])
        )
        let none = try words([], ahead: 1, large: false, opensAt: nil, on: profile)
        #expect(none.contains("person") && !none.contains("persona"), "\(none)")
    }
}
