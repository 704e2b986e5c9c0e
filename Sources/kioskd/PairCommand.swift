import ArgumentParser
import Foundation
import KioskStation

/// `kioskd pair`: what this box's pairing is (``PairedKiosk``), and `--forget` to pair it again — after the
/// console revoked it, or to move it to another store. Pairing itself happens at `kioskd run`.
struct PairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Show this kiosk's pairing, or forget it so that kioskd prints a new pairing code at its next start."
    )

    @Option(help: "Configuration file.")
    var config = "/etc/kioskd/kioskd.toml"

    @Flag(help: "Forget the pairing (restart kioskd afterwards: it prints a new code).")
    var forget = false

    func run() throws {
        let settings = try KioskConfig.load(path: config)
        guard settings.sync.pairs else {
            print("this kiosk's credential is in \(config) ([sync] credential_file): it does not pair by a code")
            return
        }
        let path = PairedKiosk.path(settings)
        guard let kept = try PairedKiosk.read(for: settings) else {
            print("not paired with \(settings.sync.server): `kioskd run` prints a pairing code")
            return
        }
        guard forget else {
            let paired = kept.paired
            print("paired with \(kept.server) as \(paired.device) (\(paired.role.rawValue)) of store \(paired.store)")
            return
        }
        try FileManager.default.removeItem(atPath: path)
        print("forgot the pairing with \(kept.server) — restart kioskd (systemctl restart kioskd) to pair again")
    }
}
