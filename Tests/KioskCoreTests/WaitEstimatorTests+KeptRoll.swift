import Foundation
import Testing

@testable import KioskCore

/// A kept roll told again after its line moved within its grid step (``LineRoll/realign(to:at:)``): what a
/// server with a long line does for most requests instead of rolling the whole line anew.
extension WaitEstimatorTests {
    /// A full store of 20 with 120 waiting (a place a minute), rolled at 10:00. Ten seconds later two left, the
    /// first called came in and the second called has not come yet: the kept roll tells the second called now,
    /// and each place after what it told the place before (a place freed), within a place of a roll made anew
    /// (which expects fewer to leave of those still inside; the kept roll does not know who left).
    @Test func aKeptRollToldAgainWithinItsStepMovesThePlacesFreedAndTaken() {
        let queue = store(capacity: 20, admitted: (0..<20).map { -Double($0) * 1.5 }, waiting: 120)
        var roll = estimator.roll(queue, at: base)
        let before = (0..<120).map { roll.wait(position: $0) }
        let now = base + .seconds(10)
        var newer = queue
        let first = newer.waiting(first: 2)
        newer.apply(event(.customerExited, at: now))
        newer.apply(event(.customerExited, at: now))
        newer.apply(event(.ticketAdmitted(first[0].id, door: "door"), at: now))
        #expect(newer.freePlaces == 1 && newer.waitingCount == 119)
        let realigned = roll.realign(to: newer, at: now)
        #expect(realigned)
        let second = roll.wait(position: 0)
        #expect(second == .zero, "the second called: a place is free for it")
        for position in 1..<119 {
            let kept = roll.wait(position: position)
            #expect(kept == before[position - 1], "place \(position)")
            let fresh = estimator.wait(position: position, in: newer, at: now).point
            #expect(abs((kept.point - fresh).minutes) <= 1, "place \(position): kept \(kept), fresh \(fresh)")
        }
    }

    /// A roll asked only about the line's head (a ticket's page near the door) goes on over tickets joined at the
    /// end, and tells them what a fresh roll tells (it crashed: the places told were fewer than the line).
    @Test func aKeptRollAskedAboutTheHeadGoesOnOverTicketsJoined() {
        let queue = store(capacity: 20, admitted: (0..<20).map { -Double($0) * 1.5 }, waiting: 60, kind: .app)
        var roll = estimator.roll(queue, at: base)
        _ = roll.wait(position: 3)
        let (newer, joined) = joining(5, to: queue)
        let extended = roll.extend(to: newer, joined: joined)
        #expect(extended)
        let fresh = estimator.schedule(through: 64, in: newer, at: base)
        for position in [3, 30, 59, 64] {
            let kept = roll.wait(position: position)
            #expect(kept == fresh[position], "place \(position)")
        }
    }

    /// What a kept roll cannot tell makes a new roll: a ticket placed within the line, a changed capacity.
    @Test func aKeptRollIsNotToldAChangeItCannotTell() {
        let queue = store(capacity: 20, admitted: (0..<20).map { -Double($0) * 1.5 }, waiting: 30)
        var roll = estimator.roll(queue, at: base)
        _ = roll.wait(position: 29)
        let now = base + .seconds(5)
        var within = queue
        // Joined between the first two of the line (issued earlier than the second).
        let placed = ticket(990, kind: .app, at: minutes(-0.5 + 0.5 / 1000))
        within.apply(event(.ticketIssued(placed, told: nil), at: now))
        #expect(within.peopleAhead(of: placed.id) == 1)
        var first = roll
        let placedWithin = first.realign(to: within, at: now)
        #expect(!placedWithin)
        var resized = queue
        resized.apply(event(.capacityChanged(25), at: now))
        let afterResize = roll.realign(to: resized, at: now)
        #expect(!afterResize)
    }
}
