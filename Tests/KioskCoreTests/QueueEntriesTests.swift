import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import KioskCore

/// The day's queue keeps its tickets packed (a station holds thousands all day): what it gives back is the
/// ticket as it was issued, whatever its form.
@Suite struct QueueEntriesTests: TicketFixtures {
    let store = UUID()
    let signer = TicketSigner()

    @Test func everyTicketComesBackAsItWasIssued() {
        var rng = SplitMix64(seed: 11)
        let prefixes = ["A", "B", "ZZ", "AZ", "a", "", "ABC", "É", "A1"]
        let issuers = ["d", "entrance-1", "a-device-name-longer-than-fifteen-bytes", "ö"]
        var queue = QueueState(capacity: 10)
        var issued: [Ticket] = []
        for n in 0..<400 {
            let time = Timestamp(milliseconds: Int64.random(in: 0...4_000_000_000_000, using: &rng))
            let kind = TicketKind.allCases.randomElement(using: &rng)!
            let slot =
                kind == .booking
                ? BookingSlot(
                    start: time,
                    end: time + .seconds(900),
                    expectedVisitMinutes: ([nil, 30] as [Int?]).randomElement(using: &rng)!
                )
                : nil
            let ticket = Ticket(
                id: .v7(at: time, using: &rng),
                store: n % 50 == 0 ? UUID() : store,
                kind: kind,
                code: TicketCode(
                    prefix: prefixes.randomElement(using: &rng)!,
                    number: [0, 7, 999, 1_000, Int.max, -1].randomElement(using: &rng)!
                ),
                issuedAt: time,
                slot: slot,
                issuer: issuers.randomElement(using: &rng)!
            )
            issued.append(ticket)
            queue.apply(event(.ticketIssued(ticket), at: time))
        }
        #expect(queue.entries.count == issued.count)
        for ticket in issued {
            #expect(queue.entries[ticket.id]?.ticket == ticket)
        }
        let read = Dictionary(uniqueKeysWithValues: queue.entries.values.map { ($0.ticket.id, $0.ticket) })
        #expect(read == Dictionary(uniqueKeysWithValues: issued.map { ($0.id, $0) }))
    }

    @Test func aStageAndACallTimeChangeNothingElse() {
        var queue = QueueState(capacity: 1)
        let first = ticket(1, at: Timestamp(milliseconds: 1_000))
        let second = ticket(2, at: Timestamp(milliseconds: 2_000))
        for t in [first, second] {
            queue.apply(event(.ticketIssued(t), at: t.issuedAt))
            queue.apply(event(.ticketTaken(t.id), at: t.issuedAt + .seconds(1)))
        }
        queue.apply(event(.ticketAdmitted(first.id, door: "door"), at: Timestamp(milliseconds: 5_000)))
        #expect(
            queue.entries[first.id]
                == QueueState.Entry(ticket: first, stage: .admitted(at: Timestamp(milliseconds: 5_000)))
        )
        #expect(
            queue.entries[second.id]
                == QueueState.Entry(ticket: second, stage: .waiting(joined: Timestamp(milliseconds: 3_000)))
        )
        #expect(queue.calledAt == [first.id: Timestamp(milliseconds: 2_000)])
    }

    /// A status shows the head of the line and counts the rest: the same as the whole line would say.
    @Test func theHeadOfTheLineAndItsLengthAgreeWithTheWholeLine() {
        var queue = QueueState(capacity: 250)
        for n in 1...600 {
            let t = ticket(n, at: Timestamp(milliseconds: Int64(n) * 1_000))
            queue.apply(event(.ticketIssued(t), at: t.issuedAt))
            queue.apply(event(.ticketTaken(t.id), at: t.issuedAt + .seconds(1)))
            if n % 3 == 0 { queue.apply(event(.ticketAdmitted(t.id, door: "door"), at: t.issuedAt + .seconds(2))) }
        }
        let now = Timestamp(milliseconds: 700_000)
        #expect(queue.waitingCount == queue.waiting.count && queue.waitingCount == 400)
        #expect(queue.called(at: now).count == 50)
        for k in [0, 1, 20, 399, 400, 1_000] {
            #expect(queue.waiting(first: k) == Array(queue.waiting.prefix(k)))
            #expect(queue.called(at: now, first: k) == Array(queue.called(at: now).prefix(k)))
        }
    }

    /// A station changes its queue under a lock while other threads drop the copies they read of it (a
    /// status page, a sync, the door): the change must not read a tree node that only the dropped copy held.
    /// swift-collections 1.6's in-place update of a `TreeDictionary` value (`tree[key]?.field = x`) asserts
    /// on such a node in a debug build (kioskd crashed on it in the USB rig, a bad pointer or an assertion
    /// in `_UnsafePath.descendToChild`); this test crashed in each of 4 runs with it.
    @Test func aQueueChangedWhileOtherThreadsDropTheirCopiesHoldsTogether() {
        var queue = QueueState(capacity: 10_000)
        var ids: [TicketID] = []
        for n in 1...3_000 {
            let t = ticket(n, at: Timestamp(milliseconds: Int64(n) * 1_000))
            queue.apply(event(.ticketIssued(t), at: t.issuedAt))
            ids.append(t.id)
        }
        let shared = SharedQueue(queue.entries)
        // Threads of their own: in a parallel test run the dispatch pool's threads may all be busy elsewhere, and
        // readers queued there read nothing while the queue changes.
        let readers = DispatchGroup()
        for _ in 0..<2 {
            readers.enter()
            Thread.detachNewThread {
                while !shared.done.load(ordering: .relaxed) {
                    let copy = shared.queue.withLock { $0 }  // released here, outside the lock
                    shared.copies.add(copy.isEmpty ? 0 : 1, ordering: .relaxed)
                }
                readers.leave()
            }
        }
        let clock = ContinuousClock()
        let end = clock.now + .seconds(2)
        var changes = 0
        while clock.now < end {
            let id = ids[changes % ids.count]
            let time = Timestamp(milliseconds: 10_000_000 + Int64(changes))
            shared.queue.withLock { queue in
                queue.setStage(.waiting(joined: time), of: id)
                queue.stampCall(id, at: time)
            }
            changes += 1
        }
        shared.done.store(true, ordering: .relaxed)
        readers.wait()
        #expect(shared.copies.load(ordering: .relaxed) > 1_000, "copies read and dropped")
        let last = shared.queue.withLock { $0 }
        #expect(changes > 10_000, "changes made: \(changes)")
        #expect(last.count == ids.count)
        #expect(last.stage(of: ids[0]) != .inPrinter && last.calledAt(ids[0]) != nil)
    }

    /// What a paper or app ticket costs in the day's tree beside its id: was 136 bytes as a whole ``Ticket``
    /// and its stage, plus a second tree for the call times.
    @Test func aPackedEntryIsAtMost72Bytes() {
        #expect(QueueState.Entries.packedEntryBytes <= 72)
    }
}

/// A queue one thread changes and others copy, as a station's ``QueueReplica`` holds it.
private final class SharedQueue: Sendable {
    let queue: Mutex<QueueState.Entries>
    let done = Atomic(false)
    let copies = Atomic(0)

    init(_ queue: QueueState.Entries) { self.queue = Mutex(queue) }
}
