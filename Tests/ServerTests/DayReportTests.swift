import Foundation
import KioskCore
import Testing

@testable import CLupServer

/// The console's accuracy figures are made of what each ticket was told when it joined the line (its
/// `ticketIssued` event keeps it) against when it was called — not of a formula worked out again afterwards.
@Suite struct DayReportTests {
    static let store = UUID()
    static let start = Timestamp(milliseconds: 1_764_000_000_000)

    static func ticket(_ kind: TicketKind, _ prefix: String, _ number: Int, at seconds: Int64) -> Ticket {
        Ticket(
            id: .v7(at: at(seconds)),
            store: store,
            kind: kind,
            code: TicketCode(prefix: prefix, number: number),
            issuedAt: at(seconds),
            issuer: "kiosk"
        )
    }

    static func at(_ seconds: Int64) -> Timestamp { start + .seconds(seconds) }

    static func told(_ point: Int64, _ low: Int64, _ high: Int64) -> WaitRange {
        WaitRange(point: .seconds(point), low: .seconds(low), high: .seconds(high))
    }

    @Test func toldWaitsAreScoredAgainstTheCall() throws {
        let paper = Self.ticket(.paper, "A", 1, at: 0)
        let first = Self.ticket(.app, "V", 1, at: 20)
        let second = Self.ticket(.app, "V", 2, at: 780)
        let untold = Self.ticket(.app, "V", 3, at: 790)  // from a device of the previous version: not scored
        let bodies: [(Int64, StoreEvent.Body)] = [
            (0, .ticketIssued(paper, told: Self.told(0, 0, 0))), (0, .ticketTaken(paper.id)),
            (10, .ticketAdmitted(paper.id, door: "door")),
            // The store (capacity 1) is full: V001 told 10 minutes (8–12), called when A001 leaves at 11:00.
            (20, .ticketIssued(first, told: Self.told(600, 480, 720))), (660, .customerExited),
            (720, .ticketAdmitted(first.id, door: "door")),
            // V002 told one minute, called 27 minutes later.
            (780, .ticketIssued(second, told: Self.told(60, 30, 90))), (790, .ticketIssued(untold, told: nil)),
            (2400, .customerExited),
        ].map { seconds, body in (seconds, body) }
        let events = bodies.map { StoreEvent.new($0.1, store: Self.store, device: "kiosk", at: Self.at($0.0)) }
        let profile = StoreProfile(
            name: "Report Market",
            address: "1 Test Street",
            location: .init(latitude: 45, longitude: 9),
            capacity: 1,
            openingHours: Array(repeating: .init(open: "00:00", close: "24:00"), count: 7),
            timeZone: "UTC",
            averageVisitMinutes: 20,
            slotMinutes: 30,
            slotSize: 1
        )
        let report = DayReport(date: "2025-11-24", events: events, profile: profile, clock: StoreClock(profile))
        let accuracy = try #require(report.estimateAccuracy)
        #expect(accuracy.scored == 3)
        #expect(accuracy.medianAbsErrorSeconds == 40)  // errors 0, 40 and 1,620 − 60 = 1,560 seconds
        #expect(accuracy.p90AbsErrorSeconds == 1560)
        #expect(abs(accuracy.within3Minutes - 2.0 / 3) < 1e-9)
        // A001 was told 0 with no range; of the two told one (10 min, 8–12; 1 min, 1–2), V001's held its wait.
        #expect(accuracy.ranged == 2)
        #expect(accuracy.rangeCoverage == 0.5)
        // A day of a store with no line: every wait told 0, no range told, no share made up.
        let quiet = try #require(EstimateAccuracy([(told: WaitRange.zero, waited: Duration.zero)]))
        #expect(quiet.ranged == 0 && quiet.rangeCoverage == nil)
        #expect(report.meanEstimateSeconds == 220)
        #expect(report.meanWaitSeconds == 753)
        #expect(report.toldAndWaited.map(\.told) == [0, 600, 60])
        // The JSON carries the figures, not every ticket's pair.
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        #expect(json.contains("\"rangeCoverage\"") && !json.contains("toldAndWaited"))
    }
}
