import Testing

@testable import KioskCore

@Suite struct TrafficModelTests {
    let monday = Timestamp(seconds: 1_763_337_600)  // a Monday, 00:00 UTC
    let plusOne = StoreTimeZone(fixedOffsetSeconds: 3600)

    /// Four Mondays with 120 admissions between 10:00 and 11:00 local (UTC+1): 2 a minute in that hour.
    @Test func learnsTheRateOfEachHour() {
        var admissions: [Timestamp] = []
        for week in 0..<4 {
            let tenLocal = monday + .seconds(Int64(week) * 7 * 86_400 + 9 * 3600)  // 09:00 UTC = 10:00 local
            for i in 0..<120 { admissions.append(tenLocal + .seconds(Int64(i) * 30)) }
        }
        let now = monday + .seconds(28 * 86_400)
        let model = TrafficModel(admissions: admissions, days: 28, zone: plusOne, now: now)
        let tenThirtyNextMonday = now + .seconds(9 * 3600 + 1800)
        // 10 ahead, nobody leaving free places: 11 admissions at 2 a minute.
        #expect(
            model.wait(peopleAhead: 10, freePlaces: 0, at: tenThirtyNextMonday, zone: plusOne) == .seconds(330)
        )
        #expect(model.wait(peopleAhead: 0, freePlaces: 3, at: tenThirtyNextMonday, zone: plusOne) == .zero)
        // Another hour, another day: nothing learnt, the caller falls back.
        #expect(
            model.wait(peopleAhead: 10, freePlaces: 0, at: tenThirtyNextMonday + .seconds(3600), zone: plusOne)
                == nil
        )
        #expect(
            model.wait(peopleAhead: 10, freePlaces: 0, at: tenThirtyNextMonday + .seconds(86_400), zone: plusOne)
                == nil
        )
    }

    @Test func tooLittleHistoryIsNoEstimate() {
        let admissions = (0..<19).map { monday + .seconds(Int64($0) * 60) }
        let model = TrafficModel(admissions: admissions, days: 28, zone: .utc, now: monday + .seconds(86_400))
        #expect(model.rates.allSatisfy { $0 == nil })
    }
}
