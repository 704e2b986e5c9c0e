import KioskCore
import SyncWire

/// What needs a person about one kiosk, from its last contact and report: the fleet view's filter and the
/// console's warnings, in the order a person would deal with them. Pure: the caller gives the time and the
/// server's policy.
enum KioskProblem: String, Codable, Sendable, CaseIterable {
    /// It speaks a sync protocol older than this server serves: refused (426) until kioskd is updated.
    case tooOld = "too_old"
    /// Silent for more than ``silentAfter`` (it called since this server started).
    case silent
    /// Its clock is more than ``clockTolerance`` from this server's.
    case clock
    /// Events the server refused for good wait in its quarantine for a person to read.
    case quarantine
    /// Out of paper, or nearly.
    case paper
    /// Its printer's cover is open, it has a fault or is disconnected, or it refuses to print on a wrong clock.
    case printer
    /// Its door scanner is disconnected, or it refuses to admit on a wrong clock.
    case door
    /// The entrance light and gate, or the voice, cannot work.
    case signals
    /// Its log holds events of a newer clup-server, or it speaks an older protocol than this server's own:
    /// update kioskd before the server's policy stops serving it.
    case update
    /// More than ``backlogAfter`` events the server has not confirmed.
    case backlog

    static let silentAfter: Duration = .seconds(60)
    static let clockTolerance: Duration = .seconds(60)
    static let backlogAfter = 100

    /// `device`'s problems at `now`, for a server that serves protocols from `oldest` and speaks `current`.
    static func of(
        _ device: EnrolledDevice,
        at now: Timestamp,
        oldest: Int,
        current: Int = SyncProtocol.current
    ) -> [KioskProblem] {
        var found: [KioskProblem] = []
        let spoken = device.syncProtocol
        let health = device.health
        if let spoken, spoken < oldest { found.append(.tooOld) }
        if let last = device.lastContact, now - last > silentAfter { found.append(.silent) }
        if let offset = device.clockOffset, offset > clockTolerance || offset < .zero - clockTolerance {
            found.append(.clock)
        }
        if (health?.quarantined ?? 0) > 0 { found.append(.quarantine) }
        if let health, health.paperLow || health.printer == "paper_out" { found.append(.paper) }
        // Out of paper is `paper`'s; the printer's other troubles are its own.
        if let printer = health?.printer, printer != "paper_out", KioskHealth.troubled.contains(printer) {
            found.append(.printer)
        }
        if ["disconnected", "clock_wrong"].contains(health?.door ?? "") { found.append(.door) }
        if health?.light == "unavailable" || health?.voice == "unavailable" { found.append(.signals) }
        let behind = (spoken.map { $0 < current } ?? false) || (health?.newerEvents ?? 0) > 0
        if behind, !found.contains(.tooOld) { found.append(.update) }
        if (health?.pendingEvents ?? 0) > backlogAfter { found.append(.backlog) }
        return found
    }
}
