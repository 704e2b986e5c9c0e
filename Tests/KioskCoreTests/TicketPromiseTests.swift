import Foundation
import TestSupport
import Testing

@testable import KioskCore

/// What a printed ticket promises (``TicketPromise``): only what would mislead breaks it, and pulling back the
/// tickets whose promise broke costs bounded paper in a busy hour while no false promise is handed out.
@Suite struct TicketPromiseTests: TicketFixtures {
    let store = UUID()
    let signer = TicketSigner()

    @Test func whatMisleadsBreaksItBetterNewsDoesNot() {
        let told = TicketPromise(ahead: 3, wait: .seconds(8 * 60), range: .seconds(5 * 60)...(.seconds(12 * 60)))
        #expect(told.holds(ahead: 3, wait: .seconds(8 * 60)))
        #expect(told.holds(ahead: 1, wait: .seconds(2 * 60)), "better news keeps the paper")
        #expect(!told.holds(ahead: 4, wait: .seconds(8 * 60)), "one more ahead than printed")
        #expect(told.holds(ahead: 3, wait: .seconds(12 * 60)) && !told.holds(ahead: 3, wait: .seconds(12 * 60 + 1)))
        let go = TicketPromise(ahead: 0, wait: .zero, range: nil)
        #expect(go.holds(ahead: 0, wait: .zero))
        #expect(!go.holds(ahead: 0, wait: .seconds(30)), "\"go to the door\", and the place is gone")
        // Without a printed range a minute's drift is kept: the told minute is rounded up.
        let point = TicketPromise(ahead: 2, wait: .seconds(5 * 60), range: nil)
        #expect(point.holds(ahead: 2, wait: .seconds(6 * 60)) && !point.holds(ahead: 2, wait: .seconds(6 * 60 + 1)))
    }

    /// A busy spell at a 50-place store (visits of 10–30 minutes: about 150 an hour; 80 app tickets and 60
    /// tear-offs an hour, each called holder at the door a minute after the call), second by second, as a presenter that can retract
    /// lives it: the paper it costs, and the promises still false when a ticket was torn off (printed on the test's
    /// output). Each reprint needs a change for the worse — nearly always an app ticket joining ahead — so there
    /// are never more than app tickets joined, and at most one per ``RetractRule/outdatedSpacing``. A quarter of
    /// an hour here (the estimate's roll, debug-built, costs most of the test's time); `CLUP_BUSY_SECONDS=3600`
    /// runs the hour docs/printers-and-scanners.md quotes.
    @Test(arguments: [1, 2] as [UInt64]) func aBusySpellCostsBoundedPaper(seed: UInt64) {
        let seconds = Int(ProcessInfo.processInfo.environment["CLUP_BUSY_SECONDS"] ?? "") ?? 900
        var random = SplitMix64(seed: seed)
        let opens = Timestamp(seconds: 1_790_000_000)
        let estimator = WaitEstimator(model: .prior(averageVisit: .seconds(1200)), callWindow: .seconds(600))
        var queue = QueueState(
            capacity: 50,
            events: [
                event(.dayStarted(BusinessDay(number: 20_700), hours: DayHours(opens: opens, closes: nil)), at: opens)
            ]
        )
        var number = 0
        var presented: (ticket: Ticket, promise: TicketPromise)?
        var lastOutdated: Timestamp?
        var leaving: [Timestamp] = []
        var (reprints, torn, falseAtTake, apps) = (0, 0, 0, 0)
        func promiseNow(at now: Timestamp) -> (ahead: Int, wait: Duration) {
            let ahead = queue.lineLength(at: now)
            return (ahead, estimator.wait(position: ahead, in: queue, at: now).point)
        }
        func print(at now: Timestamp) {
            number += 1
            let t = ticket(number, at: now)
            queue.apply(event(.ticketIssued(t), at: now))
            let told = estimator.wait(position: queue.lineLength(at: now), in: queue, at: now)
            presented = (
                t, TicketPromise(ahead: queue.lineLength(at: now), wait: told.point, range: told.low...told.high)
            )
        }
        print(at: opens)
        for second in 1...seconds {
            let now = opens + .seconds(Int64(second))
            // Those whose visit ends leave; those called a minute ago come in.
            while let first = leaving.first, first <= now {
                leaving.removeFirst()
                queue.apply(event(.customerExited, at: now))
            }
            for id in queue.calledIDs(at: now) {
                guard let called = queue.callTime(of: id, at: now), now - called >= .seconds(60) else { continue }
                queue.apply(event(.ticketAdmitted(id, door: "door"), at: now))
                leaving.append(now + .seconds(Int64.random(in: 600...1800, using: &random)))
                leaving.sort()
            }
            if Double.random(in: 0..<1, using: &random) < 80.0 / 3600 {
                apps += 1
                number += 1
                queue.apply(event(.ticketIssued(ticket(number, kind: .app, at: now)), at: now))
            }
            guard let (waiting, promise) = presented else { continue }
            let (ahead, wait) = promiseNow(at: now)
            let holds = promise.holds(ahead: ahead, wait: wait)
            if !holds, lastOutdated.map({ now - $0 >= RetractRule.outdatedSpacing }) ?? true {
                lastOutdated = now
                reprints += 1
                print(at: now)  // the outdated one is voided in the printer: it never joins the line
                continue
            }
            if Double.random(in: 0..<1, using: &random) < 60.0 / 3600 {
                torn += 1
                if !holds { falseAtTake += 1 }
                queue.apply(event(.ticketTaken(waiting.id), at: now))
                print(at: now)
            }
        }
        Swift.print(
            "busy \(seconds) s (seed \(seed)): \(torn) tear-offs, \(apps) app tickets, \(reprints) tickets pulled "
                + "back and reprinted, \(falseAtTake) torn off while their promise was broken"
        )
        let spacing = Int(RetractRule.outdatedSpacing.components.seconds)
        #expect(torn * 3600 > 40 * seconds, "the spell was busy: \(torn) tear-offs")
        #expect(reprints <= apps && reprints <= seconds / spacing, "\(reprints) reprints, \(apps) app tickets")
        #expect(falseAtTake * 10 <= torn, "\(falseAtTake) of \(torn) tear-offs held a false promise")
    }
}
