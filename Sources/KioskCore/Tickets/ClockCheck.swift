/// Whether a kiosk may believe its wall clock: it starts business days, prints the day and time on tickets and
/// stamps every event with it. Most kiosk boards have no battery-backed clock: they boot at 1970, at systemd's
/// build date or at the time saved at the last clean shutdown, until NTP answers. A wrong clock would start a
/// day of the wrong date, expire the real day's line and print tickets nobody can use.
///
/// Believed, first to last:
/// 1. the system says NTP synchronized it since boot (systemd-timesyncd's `/run/systemd/timesync/synchronized`);
/// 2. else the CLup server's clock, read in the last ``serverReadingLifetime``: within ``serverTolerance`` of
///    it, or not at all;
/// 3. else, with nothing to compare with (the server unreachable, no NTP: a shop's bad day), the clock itself as
///    long as it is not before ``floor`` (the newest time this kiosk has seen in its log, or its program's date)
///    by more than ``floorTolerance``: a clock that went back to an old date is caught, a running clock that
///    was right is kept.
public struct ClockCheck: Sendable, Equatable {
    /// What the kiosk believes its clock by.
    public enum Source: String, Sendable, Codable {
        case ntp
        case server
        case unchecked
    }

    public enum Verdict: Sendable, Equatable {
        case trusted(Source)
        /// The clock reads `now` but cannot be right: the server's is `serverOffset` away from it, or it is
        /// before `floor`.
        case wrong(serverOffset: Duration?, floor: Timestamp?)
    }

    /// How far the kiosk's clock may be from the server's (a reading is taken on a long-poll's answer: it
    /// includes the trip back, a few seconds at most).
    public static let serverTolerance = Duration.seconds(5 * 60)
    /// How long a reading of the server's clock is believed: after that, without a new one, the kiosk falls
    /// back on its floor (someone may have set the clock since).
    public static let serverReadingLifetime = Duration.seconds(10 * 60)
    /// How far before its floor the clock may be: NTP steps a drifting clock back by seconds, not hours.
    public static let floorTolerance = Duration.seconds(10 * 60)

    /// A date before this release was made (2026-11-01 UTC): no clock that runs it can read earlier. A box
    /// that boots at 1970 or at an old systemd's date is caught by it even with an empty log; raise it with
    /// the release series.
    public static let earliest = Timestamp(milliseconds: 1_793_491_200_000)

    /// The newest time the kiosk knows has passed.
    public var floor: Timestamp?

    public init(floor: Timestamp? = nil) {
        self.floor = floor
    }

    /// Raises the floor to `time` (an event written or pulled).
    public mutating func saw(_ time: Timestamp) {
        if floor.map({ time > $0 }) ?? true { floor = time }
    }

    /// The verdict on `now`: `synchronized` as the system says; `serverOffset`, the server's clock minus this
    /// one, from a reading younger than ``serverReadingLifetime`` (nil without one).
    public func verdict(now: Timestamp, synchronized: Bool, serverOffset: Duration?) -> Verdict {
        if synchronized { return .trusted(.ntp) }
        if let serverOffset {
            let off = serverOffset < .zero ? .zero - serverOffset : serverOffset
            return off <= Self.serverTolerance ? .trusted(.server) : .wrong(serverOffset: serverOffset, floor: nil)
        }
        if let floor, now < floor - Self.floorTolerance { return .wrong(serverOffset: nil, floor: floor) }
        return .trusted(.unchecked)
    }
}

extension ClockCheck.Verdict {
    public var isTrusted: Bool {
        if case .trusted = self { return true }
        return false
    }

    /// What staff read on the display and the manager page, and the log says, while the clock is wrong; nil
    /// while it is trusted.
    public func problem(now: Timestamp) -> String? {
        guard case .wrong(let offset, let floor) = self else { return nil }
        if let offset {
            let minutes = abs(offset.components.seconds) / 60
            let way = offset > .zero ? "behind" : "ahead of"
            return "the clock is \(Self.span(minutes)) \(way) the CLup server's: no tickets until it is set — check "
                + "that this box reaches an NTP server (systemd-timesyncd), or set the time"
        }
        let behind = floor.map { ($0 - now).components.seconds / 60 } ?? 0
        return "the clock is \(Self.span(behind)) before the last time this kiosk saw: no tickets until it is "
            + "set — check that this box reaches an NTP server (systemd-timesyncd) or the CLup server"
    }

    private static func span(_ minutes: Int64) -> String {
        if minutes >= 2 * 24 * 60 { return "\((minutes + 12 * 60) / (24 * 60)) days" }
        if minutes >= 120 { return "\(minutes / 60) hours" }
        return "\(minutes) minutes"
    }
}
