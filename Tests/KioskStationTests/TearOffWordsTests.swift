import Foundation
import KioskCore
import Testing

@testable import KioskStation

/// What the voice says at a tear-off is the wait from the place the ticket takes then, not the one printed on it
/// minutes before: app tickets that joined while it waited in the presenter are ahead of it.
@Suite struct TearOffWordsTests {
    let store = UUID()

    @Test func theWaitSaidAtTheTearOffCountsThoseWhoJoinedMeanwhile() throws {
        let opens = Timestamp(seconds: 1_790_000_000)
        let estimator = WaitEstimator(model: .prior(averageVisit: .seconds(1200)), callWindow: .seconds(600))
        func event(_ body: StoreEvent.Body, at time: Timestamp) -> StoreEvent {
            StoreEvent(id: .v7(at: time), store: store, device: "printer", time: time, body: body)
        }
        func ticket(_ n: Int, _ kind: TicketKind, at time: Timestamp) -> Ticket {
            Ticket(
                id: .v7(at: time),
                store: store,
                kind: kind,
                code: TicketCode(prefix: kind == .app ? "V" : "A", number: n),
                issuedAt: time,
                issuer: kind == .app ? "server" : "printer"
            )
        }
        let day = event(.dayStarted(BusinessDay(number: 20_700), hours: DayHours(opens: opens, closes: nil)), at: opens)
        var queue = QueueState(capacity: 1, events: [day])
        let paper = ticket(1, .paper, at: opens + .seconds(10))
        queue.apply(event(.ticketIssued(paper), at: paper.issuedAt))
        // Printed with nobody ahead: the place is free, no wait.
        let printed = estimator.wait(position: queue.lineLength(at: paper.issuedAt), in: queue, at: paper.issuedAt)
        #expect(printed.point == .zero)
        // Three app tickets come in while it waits in the presenter; then it is torn off.
        for n in 1...3 {
            let app = ticket(n, .app, at: opens + .seconds(Int64(20 + n)))
            queue.apply(event(.ticketIssued(app), at: app.issuedAt))
        }
        let takenAt = opens + .seconds(60)
        queue.apply(event(.ticketTaken(paper.id), at: takenAt))
        let said = PrinterLoop.tornOff(paper, queue: queue, estimator: estimator, at: takenAt)
        guard case .yourNumber(let code, let wait?) = said else {
            Issue.record("said \(said)")
            return
        }
        #expect(code == paper.code)
        #expect(queue.position(of: paper.id, at: takenAt) == 3)
        #expect(wait > .seconds(1200), "three ahead in a one-place store: more than a visit, said \(wait)")
        // Before opening the paper counts from the opening: the voice says no wait.
        let early = QueueState(
            capacity: 1,
            events: [
                event(
                    .dayStarted(
                        BusinessDay(number: 20_701),
                        hours: DayHours(opens: opens + .seconds(86_400), closes: nil)
                    ),
                    at: opens + .seconds(80_000)
                )
            ]
        )
        #expect(
            PrinterLoop.tornOff(paper, queue: early, estimator: estimator, at: opens + .seconds(80_001))
                == .yourNumber(paper.code, wait: nil)
        )
    }
}
