import KioskCore
import ServiceSupport

extension WallClock.Offset {
    /// Moves `clock` (shifted by this offset) so that it reads `time` now: the tests' jump to a given night.
    func move(_ clock: WallClock, to time: Timestamp) { advance(by: time - clock.now()) }
}
