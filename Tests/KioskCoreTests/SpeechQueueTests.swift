import TestSupport
import Testing

@testable import KioskCore

/// The voice's queue and what it calls out: bounded, calls kept over stale decisions, each call once a day,
/// nobody called out after a restart.
@Suite struct SpeechQueueTests: TicketFixtures {
    let store = StoreID()
    let signer = TicketSigner()
    let today = BusinessDay(year: 2026, month: 11, day: 26)

    func code(_ n: Int) -> TicketCode { TicketCode(prefix: "A", number: n) }

    @Test func phrasesComeOutInOrder() {
        var queue = SpeechQueue<Announcement>(capacity: 3)
        queue.add(.called(code(1)))
        queue.add(.decision(.admit(code(1))))
        queue.add(.yourNumber(code(7), wait: .seconds(300)))
        #expect(queue.next() == .called(code(1)))
        #expect(queue.next() == .decision(.admit(code(1))))
        #expect(queue.next() == .yourNumber(code(7), wait: .seconds(300)))
        #expect(queue.next() == nil)
        #expect(queue.dropped == 0)
    }

    @Test func aFullQueueDropsTheOldestPhraseThatIsNotACall() {
        var queue = SpeechQueue<Announcement>(capacity: 3)
        queue.add(.called(code(1)))
        queue.add(.decision(.forged))
        queue.add(.decision(.unreadable))
        #expect(queue.add(.decision(.expired)) == .decision(.forged))
        #expect(queue.add(.called(code(2))) == .decision(.unreadable))
        #expect(queue.dropped == 2)
        #expect(queue.waiting == [.called(code(1)), .decision(.expired), .called(code(2))])
        // Calls alone: the oldest call goes.
        #expect(queue.add(.called(code(3))) == .decision(.expired))
        #expect(queue.add(.called(code(4))) == .called(code(1)))
        #expect(queue.waiting == [.called(code(2)), .called(code(3)), .called(code(4))])
        #expect(queue.dropped == 4)
    }

    /// A flood of scans never grows the queue past its capacity, and every phrase is either said or counted.
    @Test(arguments: 0..<20) func everyPhraseIsSaidOrCounted(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var queue = SpeechQueue<Announcement>(capacity: 4)
        var added = 0
        var said = 0
        for _ in 0..<500 {
            if random.next() % 3 == 0 {
                if queue.next() != nil { said += 1 }
            } else {
                queue.add(random.next() % 4 == 0 ? .called(code(added)) : .decision(.notYourTurn(ahead: added)))
                added += 1
            }
            #expect(queue.waiting.count <= 4)
        }
        #expect(said + queue.dropped + queue.waiting.count == added)
    }

    @Test func theFirstLookOnlyTakesNote() {
        var watch = CallWatch()
        let t = (1...3).map { ticket($0, at: Timestamp(milliseconds: Int64($0) * 1000)) }
        #expect(watch.newlyCalled([t[0], t[1]], on: today).isEmpty)
        #expect(watch.newlyCalled([t[0], t[1], t[2]], on: today) == [code(3)])
        #expect(watch.recent == [code(3)])
    }

    @Test func eachTicketIsCalledOutOnceADay() {
        var watch = CallWatch(recentLimit: 5)
        let t = (1...8).map { ticket($0, at: Timestamp(milliseconds: Int64($0) * 1000)) }
        _ = watch.newlyCalled([], on: today)
        #expect(watch.newlyCalled([t[0], t[1]], on: today) == [code(1), code(2)])
        // t[1] loses its place for a moment (a walk-in took it) and gets it back: not called out again.
        #expect(watch.newlyCalled([t[1]], on: today).isEmpty)
        #expect(watch.newlyCalled([t[1], t[2]], on: today) == [code(3)])
        #expect(watch.newlyCalled(Array(t[3...7]), on: today) == [4, 5, 6, 7, 8].map(code))
        #expect(watch.recent == [8, 7, 6, 5, 4].map(code), "the last five, newest first")
        // The next morning starts afresh: whoever is called at the first look is noted, not called out.
        let tomorrow = BusinessDay(year: 2026, month: 11, day: 27)
        #expect(watch.newlyCalled([t[0]], on: tomorrow).isEmpty)
        #expect(watch.recent.isEmpty)
    }

    /// A pause is said once when it begins; when it ends, those called again are called out again (their call
    /// window starts over), and the next pause is said too.
    @Test func aPauseIsSaidAndItsEndCallsTheLineAgain() {
        var watch = CallWatch(recentLimit: 5)
        let t = (1...3).map { ticket($0, at: Timestamp(milliseconds: Int64($0) * 1000)) }
        var pauses = LinePauses()
        let at = Timestamp(milliseconds: 100_000)
        /// Whether a look `after` seconds said a pause, and whom it called out.
        func look(_ after: Int64, _ called: [Ticket]) -> (said: Bool, calls: [TicketCode]) {
            let said = watch.pauses(pauses, at: at + .seconds(after))
            return (said, watch.newlyCalled(called, on: today))
        }
        #expect(look(0, []) == (false, []))
        #expect(look(0, [t[0], t[1]]) == (false, [code(1), code(2)]))
        pauses.pause(since: at, until: at + .seconds(600), reason: "restock", by: "anna")
        #expect(look(1, []) == (true, []), "said when it begins")
        #expect(look(2, []) == (false, []), "once")
        #expect(look(601, [t[0], t[1], t[2]]) == (false, [code(1), code(2), code(3)]), "the line called again")
        #expect(look(602, [t[0], t[1], t[2]]) == (false, []), "once after the pause")
        pauses.pause(since: at + .seconds(700), until: nil, reason: "spill", by: "door-1")
        #expect(look(701, []) == (true, []))
    }
}

extension CallWatch {
    /// A look at whole tickets (the call board gives ids, and the codes of the fresh ones only).
    fileprivate mutating func newlyCalled(_ called: [Ticket], on day: BusinessDay) -> [TicketCode] {
        let codes = Dictionary(called.map { ($0.id, $0.code) }) { first, _ in first }
        return newlyCalled(called.map(\.id), on: day) { codes[$0] }
    }
}
