import Foundation
import KioskCore
import StationStore
import Testing

@testable import KioskStation
@testable import Rigs

/// `kioskd keys` as an installer uses it: the printer kiosk shows its key, the door kiosk trusts it, and the
/// door's database then verifies the printer's tickets.
@Suite struct KeysCommandTests {
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: HIL.kioskd),
            "kioskd is not built next to the tests"
        )
    )
    func showTrustListDistrust() throws {
        let root = HIL.temporaryDirectory("keys")
        defer { try? FileManager.default.removeItem(atPath: root) }
        func config(_ name: String) throws -> String {
            let path = "\(root)/\(name).toml"
            try """
            [store]
            id = "6F1D5C2E-3B8A-4E61-9C7D-2A5B8E4F1C90"
            [device]
            id = "\(name)"
            state_directory = "\(root)/\(name)"
            """.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        func kioskd(_ arguments: [String]) throws -> HIL.ProcessResult {
            try HIL.run(HIL.kioskd, ["keys"] + arguments)
        }
        let printer = try config("printer")
        let door = try config("door")

        let shown = try kioskd(["show", "--config", printer])
        #expect(shown.status == 0)
        let lines = shown.output.split(separator: "\n").map(String.init)
        try #require(lines.count == 2)
        let printerKey = try LocalStore(path: "\(root)/printer/kioskd.sqlite").signingKey()
        #expect(lines[0] == "device printer key \(printerKey.keyID)")

        let trusted = try kioskd(["trust", lines[1], "--device", "entrance printer", "--config", door])
        #expect(trusted.status == 0 && trusted.output.contains("\(printerKey.keyID)"))
        let listed = try kioskd(["list", "--config", door])
        #expect(listed.output.contains("\(printerKey.keyID)  entrance printer"))
        #expect(listed.output.contains("(this kiosk)"))
        #expect(try LocalStore(path: "\(root)/door/kioskd.sqlite").keyRing().key(for: printerKey.keyID) != nil)

        let garbage = try kioskd(["trust", "bm90IGEga2V5", "--config", door])
        #expect(garbage.status != 0 && garbage.error.contains("is not a public key"))
        #expect(try kioskd(["distrust", "\(printerKey.keyID)", "--config", door]).status == 0)
        let again = try kioskd(["distrust", "\(printerKey.keyID)", "--config", door])
        #expect(again.status != 0 && again.error.contains("no trusted key"))
        #expect(try LocalStore(path: "\(root)/door/kioskd.sqlite").keyRing().key(for: printerKey.keyID) == nil)
    }
}
