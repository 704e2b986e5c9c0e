import FoundationEssentials
import Testing

@testable import KioskCore

/// The one rule of an app ticket or booking the server issues, whatever storage reserves its number.
@Suite struct ServerIssueTests {
    let store = StoreID()
    let at = Timestamp(milliseconds: 1_767_600_000_000)

    func issue(_ kind: TicketKind, told: WaitRange? = nil) -> ServerIssue {
        ServerIssue(kind: kind, store: store, slot: nil, told: told, at: at, day: BusinessDay(number: 20_458))
    }

    @Test func anAppTicketIsAVNumberAndItsEventKeepsWhatItWasTold() throws {
        let told = WaitRange(point: .seconds(600), low: .seconds(420), high: .seconds(900))
        let (ticket, event) = try issue(.app, told: told).made(number: 42)
        #expect(ticket.code.description == "V042")
        #expect(ticket.store == store && ticket.issuedAt == at && ticket.issuer == ServerIssue.device)
        #expect(event.device == ServerIssue.device && event.store == store && event.time == at)
        guard case .ticketIssued(let issued, let kept) = event.body else {
            Issue.record("not a ticketIssued event: \(event.body)")
            return
        }
        #expect(issued == ticket && kept == told)
    }

    @Test func aBookingIsABNumber() throws {
        #expect(try issue(.booking).made(number: 1).ticket.code.description == "B001")
    }

    @Test func theLastNumberIsTheLastASignedCodeHolds() throws {
        #expect(try issue(.app).made(number: 65_535).ticket.code.number == 65_535)
        #expect(throws: TicketNumbersUsedUp(prefix: "V")) { try issue(.app).made(number: 65_536) }
        #expect(TicketNumbersUsedUp(prefix: "B").description.contains("paper ticket"))
    }
}
