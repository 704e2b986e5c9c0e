import Foundation
import KioskCore

@testable import Rigs

/// An appliance guest whose kiosk syncs with this host: clup-server and the printer emulator run here (the guest
/// reaches them at 10.0.2.2, so they outlive its power cuts, as a shop's printer and the chain's server do) for a
/// store of 5,000 places whose clock reads about noon when the run starts; the share holds the guest's script, the
/// package, and kioskd's configuration (that printer and server, a serial scanner on ttyS1, its status on port
/// 18080) and credential.
final class SyncedGuest {
    static let device = "cut-entrance"

    let server: ServerRig
    let rig: EmulatorRig
    let share: String
    let guest: GuestMachine
    let store: StoreID

    /// `script`: the guest's script, in Tests/appliance.
    init(script: String, deb: String, share name: String) async throws {
        server = try await ServerRig()
        rig = try EmulatorRig(profile: "custom-vkp80iii")
        share = HIL.temporaryDirectory(name)
        guest = try GuestMachine(share: share)
        // Nobody leaves in these runs: a capacity no run reaches (the 50-cut bench admits about 800), or the door
        // answers "store full" to the tickets held after the 500th admission.
        // The store's clock near noon whatever the hour here: the standard store's day turns at its midnight
        // (open round the clock), and a run that crossed it found every ticket held over the turn "from an
        // earlier day" at the door — as a run started at 22:56 UTC did in the standard store's UTC+01:00. The
        // kiosk is installed with the store's zone and hours (as ``KioskdConfig`` installs them): with its
        // configuration's own (UTC, the day turning at 07:00) its first tickets before the first sync were of
        // yesterday at a run started between midnight and 07:00 UTC, and the next day began again at A001.
        let offset = Self.noonOffsetMinutes()
        store = try await server.registerStore(["capacity": 5000, "utcOffsetMinutes": offset])
        let credential = try await server.enroll(Self.device, store: store)
        let fm = FileManager.default
        try fm.copyItem(atPath: "\(HIL.packageRoot)/Tests/appliance/\(script)", toPath: "\(share)/guest.sh")
        try fm.copyItem(atPath: deb, toPath: "\(share)/clup-kiosk.deb")
        try credential.write(toFile: "\(share)/credential", atomically: true, encoding: .utf8)
        try """
        [store]
        id = "\(store.uuidString)"
        name = "Power Cut Market"
        capacity = 5000
        time_zone = "\(StoreTimeZone.fixedName(offset * 60))"
        opening_time = "00:00"
        [device]
        id = "\(Self.device)"
        [printer]
        address = "tcp://10.0.2.2:\(rig.tcp.port)"
        profile = "custom-vkp80iii"
        [door]
        enabled = true
        scanner = "serial:///dev/ttyS1?baud=115200"
        [sync]
        server = "http://10.0.2.2:\(server.port)"
        credential_file = "/etc/kioskd/credential"
        insecure = true
        pull_wait_seconds = 5
        [http]
        host = "0.0.0.0"
        port = 18080
        """.write(toFile: "\(share)/kioskd.toml", atomically: true, encoding: .utf8)
    }

    /// The offset from UTC (whole quarter hours, within ±12 h) at which a store's clock reads about noon at `now`.
    static func noonOffsetMinutes(at now: Date = Date()) -> Int {
        let minuteOfDay = Int(now.timeIntervalSince1970 / 60) % 1440
        return (720 - minuteOfDay) / 15 * 15
    }

    /// A file the guest wrote back to the share ("" if there is none).
    func read(_ name: String) -> String { guest.read(name) }

    /// The guest killed and its disk removed, the printer stopped (the server stops when the test says).
    func stop() {
        guest.powerCut()
        guest.removeDisk()
        rig.stop()
    }
}
