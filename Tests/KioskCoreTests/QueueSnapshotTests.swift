import FoundationEssentials
import TestSupport
import Testing

@testable import KioskCore

/// A server starts from a store's last snapshot and folds only the events after it (issue "clup-server
/// starts from today"): the state read back from a snapshot, stored as JSON, must be the state snapshotted,
/// and fold the rest of the log to what the whole log gives.
@Suite struct QueueSnapshotTests: TicketFixtures {
    let store = UUID()
    let signer = TicketSigner()

    /// Several business days of a store (the morning line before opening, bookings across days, exits, a
    /// capacity change, staff's counts and people let in, tickets left in the printer, late and repeated events, a second admission), cut at
    /// every 37th event: snapshot, JSON, back, then the rest of the log.
    @Test func aSnapshotFoldsTheRestOfTheLogAsTheWholeLogDoes() throws {
        for seed in 1...3 {
            var rng = SplitMix64(seed: UInt64(seed))
            let log = Self.days(4, rng: &rng, fixtures: self)
            let whole = QueueState(capacity: 5, events: log)
            for cut in stride(from: 0, through: log.count, by: 37) {
                var before = QueueState(capacity: 5, events: log[..<cut])
                let data = try JSONEncoder().encode(before.snapshot)
                var restored = try #require(
                    QueueState(snapshot: try JSONDecoder().decode(QueueState.Snapshot.self, from: data))
                )
                #expect(restored == before, "seed \(seed), cut \(cut): read back differs")
                for event in log[cut...] {
                    restored.apply(event)
                    before.apply(event)
                }
                #expect(restored == whole, "seed \(seed), cut \(cut): the rest folded differently")
                let end = log.last!.time + .seconds(60)
                #expect(restored.called(at: end) == whole.called(at: end))
                #expect(restored.calledAt == whole.calledAt)
            }
            // One business day and what lives across its start, not the history.
            #expect(whole.snapshot.ticketCount < log.count / 4)
        }
    }

    @Test func aSnapshotOfAnotherVersionIsNotRead() throws {
        var snapshot = QueueState(capacity: 3).snapshot
        snapshot.version = QueueState.Snapshot.currentVersion + 1
        #expect(QueueState(snapshot: snapshot) == nil)
    }

    /// `count` business days from 08:00 to 20:00: a `dayStarted` with its hours at 07:00 (one in four keeping
    /// the line of the day before), tickets before and during opening hours, what happens to them at random, and
    /// now and then a late or repeated event.
    static func days(_ count: Int, rng: inout SplitMix64, fixtures: some TicketFixtures) -> [StoreEvent] {
        var log: [StoreEvent] = []
        var number = 0
        var live: [Ticket] = []
        var admitted: [Ticket] = []
        let epoch = Timestamp(seconds: 1_790_000_000)
        for d in 0..<count {
            let dayStart = epoch + .seconds(Int64(d) * 86_400)
            let hours = DayHours(opens: dayStart + .seconds(3_600), closes: dayStart + .seconds(13 * 3_600))
            let keepsLine = Int.random(in: 0..<4, using: &rng) == 0
            log.append(
                fixtures.event(
                    .dayStarted(BusinessDay(number: 20_000 + Int64(d)), hours: hours, keepsLine: keepsLine),
                    at: dayStart
                )
            )
            var time = dayStart + .seconds(600)
            while time < dayStart + .seconds(13 * 3_600) {
                time = time + .seconds(Int64.random(in: 20...400, using: &rng))
                switch Int.random(in: 0..<25, using: &rng) {
                case 0..<6:
                    number += 1
                    let kind: TicketKind = [.paper, .app, .paper, .booking].randomElement(using: &rng)!
                    let slot =
                        kind == .booking
                        ? BookingSlot(
                            start: time + .seconds(Int64.random(in: 600...100_000, using: &rng)),
                            end: time + .seconds(100_900)
                        )
                        : nil
                    let t = fixtures.ticket(number, kind: kind, at: time, slot: slot)
                    log.append(fixtures.event(.ticketIssued(t), at: time))
                    if kind == .paper, Int.random(in: 0..<8, using: &rng) > 0 {
                        log.append(fixtures.event(.ticketTaken(t.id), at: time + .seconds(3)))
                    }
                    live.append(t)
                case 6..<11 where !live.isEmpty:
                    let t = live.remove(at: Int.random(in: 0..<live.count, using: &rng))
                    log.append(fixtures.event(.ticketAdmitted(t.id, door: "door"), at: time))
                    admitted.append(t)
                case 11..<14:
                    log.append(fixtures.event(.customerExited, at: time))
                case 14 where !live.isEmpty:
                    let t = live.remove(at: Int.random(in: 0..<live.count, using: &rng))
                    log.append(fixtures.event(.ticketExpired(t.id), at: time))
                case 15 where !live.isEmpty:
                    let t = live.remove(at: Int.random(in: 0..<live.count, using: &rng))
                    log.append(fixtures.event(.ticketCancelled(t.id), at: time))
                case 16 where !admitted.isEmpty:
                    // A second admission at another door (a conflict), or a late exit of yesterday.
                    log.append(
                        fixtures.event(
                            .ticketAdmitted(admitted.randomElement(using: &rng)!.id, door: "door-2"),
                            at: time
                        )
                    )
                case 17:
                    log.append(fixtures.event(.capacityChanged(Int.random(in: 3...8, using: &rng)), at: time))
                case 18:
                    // The day's start said again by another device.
                    log.append(
                        fixtures.event(.dayStarted(BusinessDay(number: 20_000 + Int64(d)), hours: hours), at: time)
                    )
                case 19:
                    // Staff's count, now or stamped a few minutes back (a door that was offline).
                    let at = time - .seconds(Int64.random(in: 0...1, using: &rng) * 300)
                    log.append(
                        fixtures.event(.countCorrected(inside: Int.random(in: 0...8, using: &rng), by: "m"), at: at)
                    )
                case 20:
                    log.append(
                        fixtures.event(
                            .letIn(people: Int.random(in: 1...3, using: &rng), reason: "carer", by: "m"),
                            at: time
                        )
                    )
                case 21:
                    // Staff pause the calls, for a while or until they resume.
                    let until =
                        Bool.random(using: &rng) ? time + .seconds(Int64.random(in: 60...3_600, using: &rng)) : nil
                    log.append(fixtures.event(.linePaused(reason: "restock", until: until, by: "m"), at: time))
                case 22:
                    log.append(fixtures.event(.lineResumed(by: "door"), at: time))
                case 23 where !live.isEmpty:
                    // A holder tells its journey (some out of the range no writer makes).
                    let t = live[Int.random(in: 0..<live.count, using: &rng)]
                    let minutes = Int.random(in: -5...300, using: &rng)
                    log.append(fixtures.event(.journeyTold(t.id, minutes: minutes), at: time))
                default:
                    break
                }
            }
        }
        return log
    }
}
