import Foundation
import Testing

@testable import KioskCore

/// The store's clock from Debian's compiled zones (tzdata), checked against an independent implementation
/// (Foundation's TimeZone, which uses ICU's own copy of the rules).
@Suite struct StoreTimeZoneTests {
    static let zones = [
        "Europe/Rome", "America/New_York", "Australia/Sydney", "America/St_Johns", "Australia/Lord_Howe",
        "Europe/Dublin", "Asia/Kolkata", "America/Sao_Paulo", "Pacific/Chatham", "UTC",
    ]

    static func zone(_ name: String) throws -> StoreTimeZone {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/" + name)))
        return try StoreTimeZone(identifier: name, tzif: bytes)
    }

    /// 2026-03-29 01:00 UTC Rome springs forward, 2026-10-25 01:00 UTC it falls back.
    @Test func romeChangesAtTheRightSecond() throws {
        let rome = try Self.zone("Europe/Rome")
        let spring = Timestamp(seconds: 1_774_746_000)
        let autumn = Timestamp(seconds: 1_792_890_000)
        #expect(rome.offset(at: spring - .seconds(1)) == 3600)
        #expect(rome.offset(at: spring) == 7200)
        #expect(rome.offset(at: autumn - .seconds(1)) == 7200)
        #expect(rome.offset(at: autumn) == 3600)
    }

    /// Every zone, 3,000 random instants from 1990 to 2060 (past the compiled table's 2037: the footer's rule
    /// answers there): the same offset as Foundation's.
    @Test(arguments: zones) func agreesWithAnIndependentImplementation(_ name: String) throws {
        let zone = try Self.zone(name)
        let reference = try #require(TimeZone(identifier: name))
        var random = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let seconds = Int64.random(in: 631_152_000...2_840_140_800, using: &random)
            let expected = reference.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
            #expect(zone.offset(at: Timestamp(seconds: seconds)) == expected, "\(name) at \(seconds)")
        }
    }

    /// The footer's rule alone (what a "slim" file gives after its last change) agrees with the compiled
    /// table over the years both cover.
    @Test(arguments: ["CET-1CEST,M3.5.0,M10.5.0/3", "EST5EDT,M3.2.0,M11.1.0", "AEST-10AEDT,M10.1.0,M4.1.0/3"])
    func thePosixRuleAgreesWithTheTable(_ rule: String) throws {
        let name = ["CET": "Europe/Rome", "EST": "America/New_York", "AES": "Australia/Sydney"][String(rule.prefix(3))]!
        let table = try Self.zone(name)
        let posix = try PosixZoneRule(rule)
        for hour in stride(from: Int64(1_262_304_000), to: 2_114_380_800, by: 3600) {  // 2010 to 2037
            #expect(posix.offset(at: hour) == table.offset(at: Timestamp(seconds: hour)), "\(rule) at \(hour)")
        }
    }

    @Test func localTimesTheClockSkipsOrShowsTwice() throws {
        let rome = try Self.zone("Europe/Rome")
        let march29 = PosixZoneRule.daysFromCivil(2026, 3, 29) * 86_400
        // 02:30 does not exist on 29 March: read with the winter offset it is 01:30 UTC, 03:30 summer time.
        #expect(rome.instant(localSeconds: march29 + 9000) == Timestamp(seconds: march29 + 5400))
        #expect(rome.instant(localSeconds: march29 + 7 * 3600) == Timestamp(seconds: march29 + 5 * 3600))
        let october25 = PosixZoneRule.daysFromCivil(2026, 10, 25) * 86_400
        // 02:30 happens twice on 25 October: the first is 00:30 UTC.
        #expect(rome.instant(localSeconds: october25 + 9000) == Timestamp(seconds: october25 + 1800))
        #expect(rome.instant(localSeconds: october25 + 7 * 3600) == Timestamp(seconds: october25 + 6 * 3600))
    }

    /// The business day of a store that opens at 07:00 starts at 07:00 on its clock on both sides of a change,
    /// so the day of the change is 23 (spring) or 25 (autumn) hours long.
    @Test func businessDaysFollowTheStoresClockAcrossDaylightSaving() throws {
        let rome = try Self.zone("Europe/Rome")
        let opening = 7 * 3600
        let saturday = BusinessDay(number: PosixZoneRule.daysFromCivil(2026, 3, 28))
        let sunday = BusinessDay(number: saturday.number + 1)
        #expect(
            sunday.start(openingTime: opening, zone: rome) - saturday.start(openingTime: opening, zone: rome)
                == .seconds(23 * 3600)
        )
        #expect(
            BusinessDay(at: sunday.start(openingTime: opening, zone: rome), openingTime: opening, zone: rome) == sunday
        )
        #expect(
            BusinessDay(
                at: sunday.start(openingTime: opening, zone: rome) - .seconds(1),
                openingTime: opening,
                zone: rome
            )
                == saturday
        )
        let autumn = BusinessDay(number: PosixZoneRule.daysFromCivil(2026, 10, 24))  // the night of the change
        let next = BusinessDay(number: autumn.number + 1)
        #expect(
            next.start(openingTime: opening, zone: rome) - autumn.start(openingTime: opening, zone: rome)
                == .seconds(25 * 3600)
        )
        // A whole year: each day starts at 07:00 local, by Foundation's reckoning too.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "Europe/Rome"))
        for n in PosixZoneRule.daysFromCivil(2026, 1, 1)..<PosixZoneRule.daysFromCivil(2027, 1, 1) {
            let start = BusinessDay(number: n).start(openingTime: opening, zone: rome)
            let date = Date(timeIntervalSince1970: TimeInterval(start.seconds))
            #expect(calendar.component(.hour, from: date) == 7 && calendar.component(.minute, from: date) == 0)
        }
    }

    @Test func fixedOffsetsHaveNamesTheServerAccepts() {
        #expect(StoreTimeZone(fixedOffsetSeconds: 3600).identifier == "UTC+01:00")
        #expect(StoreTimeZone(fixedOffsetSeconds: -12_600).identifier == "UTC-03:30")
        #expect(StoreTimeZone.utc.identifier == "UTC")
        #expect(StoreTimeZone.fixedOffset(named: "UTC+01:00") == 3600)
        #expect(StoreTimeZone.fixedOffset(named: "UTC-03:30") == -12_600)
        #expect(StoreTimeZone.fixedOffset(named: "UTC+05") == 18_000)
        #expect(StoreTimeZone.fixedOffset(named: "UTC") == 0)
        for bad in ["UTC+15:00", "UTC+1", "UTC+01:60", "UTC01:00", "UTC+01:00:00", "GMT", "UTC+٠١:00", ""] {
            #expect(StoreTimeZone.fixedOffset(named: bad) == nil, "\(bad)")
        }
    }

    /// Damaged files: a clear error or a zone, never a crash (every cut, 2,000 random corruptions).
    @Test func damagedZoneFilesAreRefused() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/Europe/Rome")))
        #expect(throws: TimeZoneDataError.self) { try StoreTimeZone(identifier: "x", tzif: Array("hello".utf8)) }
        for cut in stride(from: 0, to: bytes.count - 40, by: 7) {
            #expect(throws: TimeZoneDataError.self) { try StoreTimeZone(identifier: "x", tzif: Array(bytes[..<cut])) }
        }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            var damaged = bytes
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            if let zone = try? StoreTimeZone(identifier: "x", tzif: damaged) {
                _ = zone.offset(at: Timestamp(seconds: Int64.random(in: -1 << 40...1 << 40, using: &random)))
            }
        }
        for bad in ["CET", "CET-1CEST,M13.5.0,M10.5.0", "CET-1CEST,M3.5.0", "CET-999", "<CET-1", "C-1"] {
            #expect(throws: TimeZoneDataError.self, "\(bad)") { try PosixZoneRule(bad) }
        }
    }
}
