import KioskCore
import Testing

/// When a kiosk believes its clock: NTP first, then the server's clock, then not before the last time it saw.
@Suite struct ClockCheckTests {
    /// 2026-11-27 10:00 UTC.
    let now = Timestamp(milliseconds: 1_796_205_600_000)

    @Test func aBootAt1970OrAnOldDateIsWrongWithNothingToCompareWith() {
        let check = ClockCheck(floor: ClockCheck.earliest)
        let verdict = check.verdict(now: Timestamp(milliseconds: 0), synchronized: false, serverOffset: nil)
        #expect(verdict == .wrong(serverOffset: nil, floor: ClockCheck.earliest))
        #expect(verdict.problem(now: Timestamp(milliseconds: 0))?.contains("days before the last time") == true)
        // The time saved at the last clean shutdown, three hours before the last event this kiosk wrote.
        var seen = check
        seen.saw(now)
        let old = now - .seconds(3 * 3600)
        #expect(!seen.verdict(now: old, synchronized: false, serverOffset: nil).isTrusted)
        #expect(
            seen.verdict(now: old, synchronized: false, serverOffset: nil).problem(now: old)?.contains("3 hours")
                == true
        )
    }

    @Test func aRunningClockThatWasRightIsKeptOnABadDay() {
        var check = ClockCheck(floor: ClockCheck.earliest)
        check.saw(now)
        // No NTP, no server: later than anything seen, or stepped back by seconds.
        #expect(
            check.verdict(now: now + .seconds(3600), synchronized: false, serverOffset: nil) == .trusted(.unchecked)
        )
        #expect(check.verdict(now: now - .seconds(30), synchronized: false, serverOffset: nil) == .trusted(.unchecked))
        #expect(!check.verdict(now: now - .seconds(11 * 60), synchronized: false, serverOffset: nil).isTrusted)
    }

    @Test func theServerClockDecidesWhenItIsKnown() {
        var check = ClockCheck(floor: ClockCheck.earliest)
        check.saw(now)
        // Within 5 minutes of the server's: believed, even after a step back (the server is right).
        #expect(
            check.verdict(now: now - .seconds(3600), synchronized: false, serverOffset: .seconds(100))
                == .trusted(.server)
        )
        // The box's clock 2 hours ahead of the server's: wrong, however late it reads.
        let ahead = check.verdict(now: now + .seconds(7200), synchronized: false, serverOffset: .seconds(-7200))
        #expect(ahead == .wrong(serverOffset: .seconds(-7200), floor: nil))
        #expect(ahead.problem(now: now)?.contains("2 hours ahead of the CLup server's") == true)
        let behind = check.verdict(now: now, synchronized: false, serverOffset: .seconds(600))
        #expect(behind.problem(now: now)?.contains("10 minutes behind") == true)
    }

    @Test func ntpSynchronizedIsBelievedFirst() {
        var check = ClockCheck(floor: ClockCheck.earliest)
        check.saw(now)
        // NTP set the clock back an hour (it had run ahead): believed, and the server's old reading does not
        // overrule it.
        #expect(
            check.verdict(now: now - .seconds(3600), synchronized: true, serverOffset: .seconds(-3600))
                == .trusted(.ntp)
        )
        #expect(check.verdict(now: now, synchronized: true, serverOffset: nil).problem(now: now) == nil)
    }

    @Test func theFloorOnlyRises() {
        var check = ClockCheck(floor: now)
        check.saw(now - .seconds(86_400))
        #expect(check.floor == now)
        check.saw(now + .seconds(1))
        #expect(check.floor == now + .seconds(1))
    }
}
