import FoundationEssentials
import TestSupport
import Testing

@testable import KioskCore

/// The rule of the day's edges on the store's clock: which business day a time belongs to, when a day's line
/// starts, when the store opens and hands out tickets — for a week with a closed Sunday, a store that never
/// closes (an opening time only), one open round the clock, and across daylight saving.
@Suite struct StoreCalendarTests {
    /// Monday 2026-11-23, 00:00 UTC.
    static let monday = BusinessDay(year: 2026, month: 11, day: 23)
    static let week = try! StoreHours.daily(
        open: TimeOfDay(hour: 7, minute: 0),
        close: TimeOfDay(hour: 21, minute: 0),
        closedDays: [6]
    )
    let calendar = StoreCalendar(hours: Self.week, zone: .utc)

    func at(_ day: Int64, _ hour: Int, _ minute: Int = 0) -> Timestamp {
        BusinessDay(number: Self.monday.number + day).instant(
            secondsAfterMidnight: hour * 3600 + minute * 60,
            zone: .utc
        )
    }

    func day(_ n: Int64) -> BusinessDay { BusinessDay(number: Self.monday.number + n) }

    @Test func aTicketTakenWhileClosedBelongsToTheNextOpeningDay() {
        #expect(calendar.businessDay(at: at(0, 10)) == day(0))
        #expect(calendar.businessDay(at: at(0, 20, 59)) == day(0))
        #expect(calendar.businessDay(at: at(0, 21)) == day(1), "closing turns the day")
        #expect(calendar.businessDay(at: at(0, 23, 30)) == day(1))
        #expect(calendar.businessDay(at: at(1, 6, 59)) == day(1))
        // Saturday evening and all Sunday: Monday's.
        #expect(calendar.businessDay(at: at(5, 21, 30)) == day(7))
        #expect(calendar.businessDay(at: at(6, 12)) == day(7))
    }

    @Test func aDaysLineStartsAtThePreviousClosing() {
        #expect(calendar.lineStarts(day(1)) == at(0, 21))
        #expect(calendar.lineStarts(day(7)) == at(5, 21), "Monday's line starts on Saturday evening")
        #expect(calendar.opens(day(7)) == at(7, 7))
        #expect(calendar.closes(day(0)) == at(0, 21))
        let event = calendar.dayStarted(day(1), store: UUID(), device: "d")
        #expect(event.time == at(0, 21))
        #expect(event.body == .dayStarted(day(1), hours: DayHours(opens: at(1, 7), closes: at(1, 21))))
    }

    @Test func thePhaseSaysWhenTheStoreOpensAndHandsOutTickets() {
        #expect(calendar.phase(at: at(0, 10)) == .open(day(0), since: at(0, 7), closes: at(0, 21)))
        #expect(calendar.phase(at: at(0, 22)) == .closed(day(1), opens: at(1, 7), ticketsFrom: at(0, 21)))
        #expect(calendar.handsOutTickets(at: at(0, 22)), "all night by default")
        var early = calendar
        early.hours.ticketsBeforeOpening = .seconds(3600)
        #expect(early.phase(at: at(0, 22)) == .closed(day(1), opens: at(1, 7), ticketsFrom: at(1, 6)))
        #expect(!early.handsOutTickets(at: at(1, 5, 59)))
        #expect(early.handsOutTickets(at: at(1, 6)))
        // A window longer than the night starts at the closing.
        early.hours.ticketsBeforeOpening = .seconds(12 * 3600)
        #expect(early.phase(at: at(0, 22)) == .closed(day(1), opens: at(1, 7), ticketsFrom: at(0, 21)))
    }

    /// A kiosk configured with an opening time only: it never closes, and the day turns at the opening (what
    /// kiosks did before store hours).
    @Test func aStoreWithoutAClosingTimeIsAlwaysOpen() {
        let legacy = StoreCalendar(hours: .openAllDay, zone: .utc)
        #expect(legacy.businessDay(at: at(1, 6, 59)) == day(0))
        #expect(legacy.businessDay(at: at(1, 7)) == day(1))
        #expect(legacy.phase(at: at(1, 3)) == .open(day(0), since: at(0, 7), closes: nil))
        #expect(legacy.lineStarts(day(1)) == at(1, 7))
        #expect(legacy.dayStarted(day(1), store: UUID(), device: "d").time == at(1, 7))
    }

    @Test func aStoreOpenRoundTheClockTurnsItsDayAtMidnight() throws {
        let always = StoreCalendar(
            hours: try .daily(open: TimeOfDay(hour: 0, minute: 0), close: TimeOfDay(closing: "24:00")),
            zone: .utc
        )
        #expect(always.businessDay(at: at(0, 23, 59)) == day(0))
        #expect(always.businessDay(at: at(1, 0)) == day(1))
        for hour in [0, 6, 12, 23] { #expect(always.phase(at: at(2, hour)).isOpen) }
    }

    /// Rome's spring change (29 March 2026): the store still opens at 07:00 and closes at 21:00 on its clock.
    @Test func theHoursFollowTheStoresClockAcrossDaylightSaving() throws {
        let rome = try StoreTimeZoneTests.zone("Europe/Rome")
        let calendar = StoreCalendar(hours: Self.week, zone: rome)
        let sunday = BusinessDay(year: 2026, month: 3, day: 29)
        let monday = BusinessDay(number: sunday.number + 1)
        // Sunday is closed: Monday's line starts on Saturday at 21:00 CET (20:00 UTC).
        #expect(calendar.lineStarts(monday) == Timestamp(seconds: (sunday.number - 1) * 86_400 + 20 * 3600))
        #expect(calendar.opens(monday) == Timestamp(seconds: monday.number * 86_400 + 5 * 3600), "07:00 CEST")
    }

    /// For any time: its day's line started at or before it, the day has not closed, and the day never goes
    /// back as time goes on.
    @Test(arguments: 0..<8) func theDayOfATimeHoldsItAndNeverGoesBack(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let week = try StoreHours(
            week: (0..<7).map { _ in
                guard Int.random(in: 0..<5, using: &random) > 0 else { return nil }
                let open = Int.random(in: 0..<20, using: &random)
                let close = Int.random(in: (open + 1)...24, using: &random)
                return StoreHours.Opening(
                    open: TimeOfDay(hour: open, minute: 0),
                    close: seed % 3 == 0 ? nil : TimeOfDay(hour: close, minute: 0)
                )
            },
            ticketsBeforeOpening: nil
        )
        let calendar = StoreCalendar(hours: week, zone: StoreTimeZone(fixedOffsetSeconds: 3600))
        var previous: BusinessDay?
        var time = at(0, 0)
        for _ in 0..<2000 {
            time = time + .seconds(Int64.random(in: 60...7200, using: &random))
            let day = calendar.businessDay(at: time)
            #expect(calendar.lineStarts(day) <= time && time < calendar.closes(day), "\(time) in \(day)")
            if let previous { #expect(previous <= day) }
            previous = day
            switch calendar.phase(at: time) {
            case .open(let d, let since, let closes):
                #expect(d == day && since <= time && (closes.map { time < $0 } ?? true))
            case .closed(let d, let opens, let from):
                #expect(d == day && time < opens && from <= opens)
            }
        }
    }

    @Test func aWeekWithoutAnOpeningOrWithAClosingBeforeItsOpeningIsRefused() {
        #expect(throws: StoreHoursError.self) { try StoreHours(week: Array(repeating: nil, count: 7)) }
        #expect(throws: StoreHoursError.self) {
            try StoreHours.daily(open: TimeOfDay(hour: 9, minute: 0), close: TimeOfDay(hour: 8, minute: 0))
        }
        #expect(throws: StoreHoursError.self) {
            try StoreHours.daily(open: TimeOfDay(hour: 9, minute: 0), ticketsBeforeOpening: .seconds(-60))
        }
    }

    @Test func theHoursRoundTripThroughTheirWireForm() throws {
        var hours = Self.week
        hours.ticketsBeforeOpening = .seconds(60 * 60)
        let data = try JSONEncoder().encode(hours)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""open":"07:00""#) && text.contains(#""ticketsBeforeOpeningMinutes":60"#))
        #expect(try JSONDecoder().decode(StoreHours.self, from: data) == hours)
        let bad = #"{"openingHours":[{"open":"09:00","close":"08:00"},null,null,null,null,null,null]}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(StoreHours.self, from: Data(bad.utf8)) }
    }
}
