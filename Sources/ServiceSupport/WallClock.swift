import Foundation
import KioskCore
import Synchronization

/// The wall clock a station or the server reads (the core never reads one: it is handed times).
///
/// `system` in production. A test can shift it, so that a booked slot comes, or a called ticket's window
/// passes, without waiting for it: every part of a station or server given the same clock sees the same time.
public struct WallClock: Sendable {
    private let offset: Offset?
    private let manual: Manual?

    /// The system's clock.
    public static let system = WallClock(offset: nil, manual: nil)

    /// The system's clock plus `offset`, which can be moved forward while running.
    public static func shifted(by offset: Offset) -> WallClock { WallClock(offset: offset, manual: nil) }

    /// A clock that reads what `time` is set to and nothing else: a simulation's virtual time (`clup-sim`).
    public static func manual(_ time: Manual) -> WallClock { WallClock(offset: nil, manual: time) }

    public func now() -> Timestamp {
        if let manual { return manual.time }
        let system = Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
        guard let offset else { return system }
        return system + offset.value
    }

    /// The time a manual clock reads.
    public final class Manual: Sendable {
        private let current: Mutex<Timestamp>

        public init(_ time: Timestamp) { current = Mutex(time) }

        public var time: Timestamp { current.withLock { $0 } }

        public func set(_ time: Timestamp) { current.withLock { $0 = time } }
    }

    /// How far a shifted clock is ahead of the system's.
    public final class Offset: Sendable {
        private let shift = Mutex(Duration.zero)

        public init() {}

        public var value: Duration { shift.withLock { $0 } }

        public func advance(by duration: Duration) {
            shift.withLock { $0 += duration }
        }
    }
}
