import Foundation
import KioskCore

/// A kioskd.toml for a kioskd process under test: one store, the printer emulator at `printer` (Custom VKP80III,
/// polled every 20 ms), the state in `state`, logs at error level, and `extra` sections appended. A kiosk that
/// syncs with a test server is installed with its store's `zone` (else it counts days in UTC until its first
/// sync, and its first ticket may belong to a day it guessed) and, unless `extraStore` gives hours, the test
/// store's: open round the clock, the day turning at midnight (``ServerRig/storeProfile``) — with the
/// configuration's own default (the day turning at 07:00) a kiosk's first tickets between midnight and 07:00
/// would be of another day than the server's.
enum KioskdConfig {
    /// Writes a kiosk credential where kioskd takes it from, as an installer does: a file of its own, mode
    /// 600 (kioskd refuses a credential others can read); its path, for `[sync] credential_file`.
    static func credentialFile(_ credential: String, in directory: String) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = "\(directory)/credential"
        guard
            FileManager.default.createFile(
                atPath: path,
                contents: Data((credential + "\n").utf8),
                attributes: [.posixPermissions: 0o600]
            )
        else { throw CocoaError(.fileWriteUnknown) }
        return path
    }

    static func write(
        state: String,
        printer: String,
        store: StoreID,
        device: String,
        zone: String? = nil,
        httpPort: Int = 0,
        store extraStore: String = "",
        printer extraPrinter: String = "",
        extra: String = "",
        logLevel: String = "error"
    ) throws -> String {
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let path = "\(state)/kioskd.toml"
        try """
        [store]
        id = "\(store.uuidString)"
        name = "Test Market"
        \(zone.map { "time_zone = \"\($0)\"" } ?? "")
        \(["hours", "opening_time"].contains { extraStore.contains($0) } ? "" : "opening_time = \"00:00\"")
        \(extraStore)
        [device]
        id = "\(device)"
        state_directory = "\(state)"
        [printer]
        address = "\(printer)"
        profile = "custom-vkp80iii"
        poll_interval_ms = 20
        debounce_ms = 10
        \(extraPrinter)
        [http]
        port = \(httpPort)
        [log]
        level = "\(logLevel)"
        \(extra)
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
