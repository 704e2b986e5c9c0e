import Foundation
import KioskCore
import Testing

@testable import KioskStation

/// The C library's local time (what kioskd prints and counts business days by) agrees with Foundation's,
/// across a year of this machine's zone, daylight saving changes included.
struct LocalTimeTests {
    @Test func theCLibrarysLocalTimeIsFoundations() {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        formatter.timeZone = .current
        var time = Timestamp(milliseconds: 1_767_225_600_000)  // 2026-01-01
        for _ in 0..<(366 * 4) {
            let date = Date(timeIntervalSince1970: Double(time.milliseconds) / 1000)
            #expect(Timestamp.localText(time) == formatter.string(from: date))
            #expect(Timestamp.utcOffset(at: time) == TimeZone.current.secondsFromGMT(for: date))
            time = time + .seconds(6 * 3600 + 17 * 60 + 13)
        }
    }
}
