import Foundation
import KioskCore
import ServiceSupport
import Testing

@testable import KioskStation

/// The time printed on a ticket is the store's clock (its zone, whatever the box's `TZ`), and agrees with
/// Foundation's formatter across a year, daylight saving changes included.
struct LocalTimeTests {
    @Test(arguments: ["Europe/Rome", "America/St_Johns", "Australia/Lord_Howe", "UTC"])
    func theTicketsTimeIsTheStoresClock(_ name: String) throws {
        let zone = try TimeZoneDirectory.system.zone(named: name)
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        formatter.timeZone = TimeZone(identifier: name)
        var time = Timestamp(milliseconds: 1_767_225_600_000)  // 2026-01-01
        for _ in 0..<(366 * 4) {
            let date = Date(timeIntervalSince1970: Double(time.milliseconds) / 1000)
            #expect(Timestamp.localText(time, zone: zone) == formatter.string(from: date))
            time = time + .seconds(6 * 3600 + 17 * 60 + 13)
        }
    }

    @Test func unknownAndHostileZoneNamesAreRefusedWithWhatToDo() {
        for name in [
            "Europe/Atlantis", "../../etc/passwd", "/etc/localtime", "Europe/../UTC", "posix/Europe/Rome",
            "right/Europe/Rome", "localtime", "", String(repeating: "A", count: 65), "Europe/Rome\0", "Europe//Rome",
        ] {
            #expect(throws: TimeZoneDirectory.Unknown.self, "\(name)") {
                try TimeZoneDirectory.system.zone(named: name)
            }
        }
        #expect((try? TimeZoneDirectory.system.zone(named: "America/Argentina/Buenos_Aires")) != nil)
        #expect((try? TimeZoneDirectory.system.zone(named: "UTC+05:30"))?.offset(at: Timestamp(seconds: 0)) == 19_800)
    }
}
