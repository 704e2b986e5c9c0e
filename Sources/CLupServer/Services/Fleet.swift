import KioskCore
import SyncWire

/// The kiosks as the fleet view shows them (a store's page, the system manager's fleet page, `GET
/// /v1/devices`): what storage keeps of each, joined with what this server heard from it since it started —
/// its last contact and protocol (``DeviceContacts``), its last report and clock — and the problems that
/// follow (``KioskProblem``), judged by this server's policy.
struct Fleet: Sendable {
    let database: any ServerStorage
    let contacts: DeviceContacts
    /// The oldest sync protocol this server serves (`--oldest-kiosk-protocol`).
    let oldestProtocol: Int

    /// The kiosks of `store` (every store's when nil), those of `version` and with `problem` when given.
    func kiosks(
        of store: StoreID?,
        version: String? = nil,
        problem: KioskProblem? = nil
    ) async throws -> [EnrolledDevice] {
        let now = database.clock.now()
        let enrolled = try await database.devices(store: store)
        return enrolled.map { joined($0, at: now) }.filter { Self.matches($0, version: version, problem: problem) }
    }

    /// Whether `device` reported `version` and has `problem`, each when given.
    static func matches(_ device: EnrolledDevice, version: String?, problem: KioskProblem?) -> Bool {
        (version.map { device.health?.version == $0 } ?? true) && (problem.map(device.problems.contains) ?? true)
    }

    private func joined(_ device: EnrolledDevice, at now: Timestamp) -> EnrolledDevice {
        var device = device
        let seen = contacts.lastContact(device.device, of: device.store)
        device.lastContact = seen?.at
        device.syncProtocol = seen?.syncProtocol
        device.health = seen?.health
        device.clockOffsetSeconds = seen?.clockOffset.map { Int($0.components.seconds) }
        device.problems = KioskProblem.of(device, at: now, oldest: oldestProtocol)
        return device
    }

    /// A fleet query's filters, checked: a version as kiosks report it, a problem by its name.
    /// A query value as a form sends it: `+` is a space (a version with a plus comes as `%2B`).
    static func formDecoded(_ value: Substring) -> String { value.replacingOccurrences(of: "+", with: " ") }

    static func filter(version: String?, problem: String?) throws(Refusal) -> (String?, KioskProblem?) {
        if let version, !KioskHealth.isVersion(version) {
            throw Refusal.invalid(KioskHealth.versionRule + ", e.g. 0.1.335", field: "version")
        }
        guard let problem else { return (version, nil) }
        guard let known = KioskProblem(rawValue: problem) else {
            let names = KioskProblem.allCases.map(\.rawValue).joined(separator: ", ")
            throw Refusal.invalid("one of \(names)", field: "problem")
        }
        return (version, known)
    }
}
