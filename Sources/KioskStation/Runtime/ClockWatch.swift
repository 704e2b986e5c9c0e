import Foundation
import KioskCore
import Logging
import ServiceSupport
import Synchronization

/// The kiosk's belief in its wall clock (``ClockCheck``): asked before a business day starts, a ticket is
/// issued or a scan decided; fed by the sync's readings of the server's clock and by systemd-timesyncd's flag.
/// While the clock is wrong nothing is stamped with it: the printer hands out no ticket, the door decides
/// nothing, and the status, the display, the manager page and a metric say why. A change either way is logged
/// once.
public final class ClockWatch: Sendable {
    /// Why a day cannot start, a ticket be issued or a scan be decided now.
    public struct Wrong: Error, CustomStringConvertible {
        public let description: String
    }

    /// What `/status` says of the clock.
    public struct Status: Codable, Sendable, Equatable {
        public var trusted: Bool
        /// What it is believed by: `ntp`, `server`, `unchecked` (nothing to compare with; not before the last
        /// time the kiosk saw); absent while wrong.
        public var source: ClockCheck.Source?
        /// While wrong: what is wrong and what to do.
        public var problem: String?
    }

    /// Created by systemd-timesyncd once NTP synchronized the clock since boot (systemd 250 and later).
    public static let timesyncFlag = "/run/systemd/timesync/synchronized"

    let clock: WallClock
    let logger: Logger
    let synchronizedFlag: String
    private struct State {
        var check: ClockCheck
        var server: (offset: Duration, read: ContinuousClock.Instant)?
        var trusted: Bool?
        /// The newest time the clock was believed (and the kiosk's own newest event at start): no event is
        /// stamped before it while the clock is wrong, nor by a clock stepped back less than
        /// ``ClockCheck/floorTolerance``.
        var believed: Timestamp?
    }
    private let state: Mutex<State>

    /// `floor`: the newest time the kiosk is known to have seen (its log's own events), if any.
    public init(
        clock: WallClock,
        logger: Logger,
        floor: Timestamp?,
        synchronizedFlag: String = ClockWatch.timesyncFlag
    ) {
        var check = ClockCheck(floor: ClockCheck.earliest)
        if let floor { check.saw(floor) }
        self.clock = clock
        self.logger = logger
        self.synchronizedFlag = synchronizedFlag
        state = Mutex(State(check: check, believed: floor))
    }

    /// The server's clock read `time` just now (a page of its log).
    public func serverSays(_ time: Timestamp) {
        let offset = time - clock.now()
        state.withLock { $0.server = (offset, .now) }
    }

    /// The verdict now; a trusted clock raises the floor to now.
    public func verdict() -> ClockCheck.Verdict { judge().verdict }

    /// What is wrong with the clock and what to do; nil while it is believed.
    public var problem: String? {
        let (verdict, now) = judge()
        return verdict.problem(now: now)
    }

    /// The verdict, and the time it was made at.
    private func judge() -> (verdict: ClockCheck.Verdict, now: Timestamp) {
        let now = clock.now()
        let synchronized = FileManager.default.fileExists(atPath: synchronizedFlag)
        let (verdict, changed) = state.withLock { state in
            let reading = state.server.flatMap {
                ContinuousClock.now - $0.read < ClockCheck.serverReadingLifetime ? $0.offset : nil
            }
            let verdict = state.check.verdict(now: now, synchronized: synchronized, serverOffset: reading)
            if case .trusted(let source) = verdict {
                // NTP and the server are right even where the kiosk saw later times: its clock ran ahead then.
                let back = state.believed.map { $0 - now > ClockCheck.floorTolerance } ?? false
                if source != .unchecked, back || (state.check.floor.map { now < $0 } ?? false) {
                    state.check.floor = now
                }
                state.check.saw(now)
                state.believed = back ? now : max(now, state.believed ?? now)
            }
            let changed = state.trusted != verdict.isTrusted
            state.trusted = verdict.isTrusted
            return (verdict, changed)
        }
        if changed { log(verdict, now: now) }
        return (verdict, now)
    }

    /// What a station stamps an event at `time` with: the last time the clock was believed if `time` is before
    /// it while the clock is wrong (a take then joins the line behind those before it), or by less than
    /// ``ClockCheck/floorTolerance`` (NTP stepped the clock back: the line keeps its order); else `time`.
    public func stamp(_ time: Timestamp) -> Timestamp {
        state.withLock { state in
            guard let believed = state.believed, time < believed else { return time }
            return state.trusted == false || believed - time <= ClockCheck.floorTolerance ? believed : time
        }
    }

    /// Throws ``Wrong`` while the clock cannot be believed.
    public func requireTrusted() throws {
        if let problem { throw Wrong(description: problem) }
    }

    public var status: Status {
        let (verdict, now) = judge()
        if case .trusted(let source) = verdict { return Status(trusted: true, source: source) }
        return Status(trusted: false, problem: verdict.problem(now: now))
    }

    private func log(_ verdict: ClockCheck.Verdict, now: Timestamp) {
        let reads = Timestamp.localText(now, zone: .utc)
        switch verdict {
        case .trusted(let source):
            logger.notice("the clock is believed", metadata: ["by": "\(source.rawValue)", "reads": "\(reads) UTC"])
        case .wrong:
            logger.error(
                "the clock is wrong: no tickets, no decisions at the door",
                metadata: ["reads": "\(reads) UTC", "action": "\(verdict.problem(now: now) ?? "")"]
            )
        }
    }
}
