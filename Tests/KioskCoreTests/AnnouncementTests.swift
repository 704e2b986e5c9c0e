import Testing

@testable import KioskCore

/// What the kiosk says: a phrase for every decision in every language, codes read digit by digit, the wait in
/// whole minutes as the ticket prints it.
@Suite struct AnnouncementTests {
    /// One decision of each kind.
    static let everyDecision: [AdmissionDecision] = [
        .admit(TicketCode(prefix: "A", number: 43)), .notYourTurn(ahead: 3), .notYourTurn(ahead: 1),
        .storeFull(inside: 50, capacity: 50), .alreadyUsed(at: Timestamp(milliseconds: 0)), .expired, .previousDay,
        .closed(opensAt: nil, ahead: nil), .paused(until: nil, ahead: 2), .cancelled,
        .tooEarly(slotStart: Timestamp(milliseconds: 0)),
        .tooLate(slotStart: Timestamp(milliseconds: 0)), .wrongStore, .forged, .unreadable, .unknownTicket,
        .notRecorded,
    ]

    @Test(arguments: SpokenLanguage.allCases) func everyDecisionHasItsOwnWords(_ language: SpokenLanguage) {
        var said: Set<String> = []
        for decision in Self.everyDecision {
            let text = Announcement.decision(decision).text(in: language)
            #expect(!text.contains("decision.") && !text.contains("{"), "\(decision) in \(language): \(text)")
            said.insert(text)
        }
        #expect(said.count == Self.everyDecision.count, "two decisions share their words in \(language)")
        // The table holds a phrase for each decision and none for a decision that does not exist.
        let table = SpokenCatalogue.table(language).phrases.keys
        let decisionKeys = Set(
            table.filter { $0.hasPrefix("decision.") }.map { String($0.dropFirst("decision.".count)) }
        )
        #expect(decisionKeys == Set(Self.everyDecision.map(\.reason)).subtracting(["not_your_turn"]))
        #expect(Set(table) == Set(SpokenCatalogue.english.keys), "\(language) and English differ in their keys")
    }

    @Test func codesAreReadDigitByDigit() {
        #expect(Announcement.spelled(TicketCode(prefix: "A", number: 43)) == "A 0 4 3")
        #expect(Announcement.spelled(TicketCode(prefix: "BV", number: 1000)) == "B V 1 0 0 0")
        #expect(
            Announcement.called(TicketCode(prefix: "A", number: 42)).text(in: .english)
                == "Number A 0 4 2, please come to the entrance."
        )
        #expect(
            Announcement.called(TicketCode(prefix: "A", number: 42)).text(in: .italian)
                == "Numero A 0 4 2, si avvicini all'ingresso, per favore."
        )
    }

    /// The number and the wait as the ticket prints it: whole minutes rounded up, "1 minute" alone, no wait
    /// when none was told or the ticket is called at once.
    @Test func theTakenTicketSaysItsNumberAndWait() {
        let code = TicketCode(prefix: "A", number: 43)
        #expect(
            Announcement.yourNumber(code, wait: .seconds(9 * 60 + 10)).text(in: .english)
                == "Your number is A 0 4 3. About 10 minutes."
        )
        #expect(
            Announcement.yourNumber(code, wait: .seconds(40)).text(in: .italian)
                == "Il suo numero è A 0 4 3. Circa 1 minuto."
        )
        #expect(Announcement.yourNumber(code, wait: .zero).text(in: .english) == "Your number is A 0 4 3.")
        #expect(Announcement.yourNumber(code, wait: nil).text(in: .english) == "Your number is A 0 4 3.")
        #expect(
            Announcement.decision(.notYourTurn(ahead: 1)).text(in: .english)
                == "Not your turn yet: 1 person before you."
        )
        #expect(
            Announcement.decision(.notYourTurn(ahead: 3)).text(in: .italian)
                == "Non è ancora il suo turno: 3 persone prima di lei."
        )
    }
}
