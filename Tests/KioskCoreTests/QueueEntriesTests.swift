import FoundationEssentials
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

    /// What a paper or app ticket costs in the day's tree beside its id: was 136 bytes as a whole ``Ticket``
    /// and its stage, plus a second tree for the call times.
    @Test func aPackedEntryIsAtMost72Bytes() {
        #expect(QueueState.Entries.packedEntryBytes <= 72)
    }
}
