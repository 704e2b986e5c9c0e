import Foundation
import KioskCore
import Logging
import ServiceSupport
import Testing

@testable import KioskStation

/// The watch believes what the sync reads of the server's clock and systemd-timesyncd's flag, and never lets
/// an event be stamped before the last time the clock was believed.
@Suite struct ClockWatchTests {
    let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test func theServersClockAndTheNTPFlagDecide() throws {
        let flag = NSTemporaryDirectory() + "clup-synchronized-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: flag) }
        let time = WallClock.Manual(Timestamp(milliseconds: 1_796_205_600_000))
        let watch = ClockWatch(clock: .manual(time), logger: logger, floor: nil, synchronizedFlag: flag)
        #expect(watch.verdict() == .trusted(.unchecked))
        // A page of the log says the server's clock is two hours behind this box's.
        watch.serverSays(time.time - .seconds(7200))
        #expect(watch.verdict() == .wrong(serverOffset: .seconds(-7200), floor: nil))
        #expect(throws: ClockWatch.Wrong.self) { try watch.requireTrusted() }
        #expect(watch.status.problem?.contains("2 hours ahead of the CLup server's") == true)
        // NTP synchronized the clock since boot: believed first.
        #expect(FileManager.default.createFile(atPath: flag, contents: nil))
        #expect(watch.status == ClockWatch.Status(trusted: true, source: .ntp))
        try FileManager.default.removeItem(atPath: flag)
        // The next page agrees within seconds.
        watch.serverSays(time.time + .seconds(2))
        #expect(watch.verdict() == .trusted(.server))
    }

    @Test func eventsAreNeverStampedBeforeTheLastBelievedTime() {
        let time = WallClock.Manual(Timestamp(milliseconds: 1_796_205_600_000))
        let watch = ClockWatch(clock: .manual(time), logger: logger, floor: nil)
        let believed = time.time
        #expect(watch.verdict().isTrusted)
        // NTP steps the clock back 40 seconds: a tear-off now is stamped at the last believed time, not before.
        time.set(believed - .seconds(40))
        #expect(watch.verdict().isTrusted)
        #expect(watch.stamp(time.time) == believed)
        time.set(believed + .seconds(5))
        #expect(watch.stamp(time.time) == believed + .seconds(5))
    }
}
