import ArgumentParser
import Crypto
import Foundation
import KioskCore
import KioskStation
import ServiceSupport
import StationStore

/// `kioskd keys`: this kiosk's ticket-signing key and the store's key ring it verifies tickets with.
///
/// clup-server distributes the ring through sync; these commands set it up by hand for kiosks that run
/// without a server (one printer kiosk and a separate door kiosk, say): `show` on the printer, `trust` on
/// the door. A running kioskd picks up a new key at the first ticket signed with it.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Show this kiosk's ticket-signing key; trust or distrust the keys of the store's other kiosks.",
        subcommands: [Show.self, List.self, Trust.self, Distrust.self]
    )

    struct Options: ParsableArguments {
        @Option(help: "Configuration file.")
        var config = "/etc/kioskd/kioskd.toml"

        func open() throws -> (KioskConfig, LocalStore) {
            let settings: KioskConfig
            do {
                settings = try KioskConfig.load(path: config)
            } catch {
                throw ValidationError("\(error)")
            }
            try FileManager.default.createDirectory(
                atPath: settings.device.stateDirectory,
                withIntermediateDirectories: true
            )
            return (settings, try LocalStore(path: "\(settings.device.stateDirectory)/kioskd.sqlite"))
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print this kiosk's public key (base64), to trust on the store's door kiosks."
        )
        @OptionGroup var options: Options

        func run() throws {
            let (settings, store) = try options.open()
            let key = try store.signingKey()
            print("device \(settings.device.id) key \(key.keyID)")
            print(key.publicKey.rawRepresentation.base64EncodedString())
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the keys tickets are verified with.")
        @OptionGroup var options: Options

        func run() throws {
            let (settings, store) = try options.open()
            let own = try store.signingKey()
            print("\(own.keyID)  \(settings.device.id) (this kiosk)")
            for key in try store.trustedKeys() { print("\(key.keyID)  \(key.device)") }
        }
    }

    struct Trust: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Trust tickets signed by another kiosk of this store (its `kioskd keys show` output)."
        )
        @OptionGroup var options: Options
        @Argument(help: "The other kiosk's public key, base64 (44 characters).")
        var publicKey: String
        @Option(help: "A name for the other kiosk, for `keys list`.")
        var device = "unnamed kiosk"

        func run() throws {
            guard let raw = Data(base64Encoded: publicKey), raw.count == 32,
                let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw)
            else {
                throw ValidationError(
                    "'\(publicKey)' is not a public key: copy the second line of `kioskd keys show` on the other kiosk"
                )
            }
            let (_, store) = try options.open()
            try store.trust(key, device: device, at: WallClock.system.now())
            print("trusted \(KeyID(publicKey: key)) (\(device))")
        }
    }

    struct Distrust: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop trusting a key: tickets it signed are refused as forged from then on."
        )
        @OptionGroup var options: Options
        @Argument(help: "The key id from `kioskd keys list` (8 hex digits).")
        var keyID: String

        func run() throws {
            let (_, store) = try options.open()
            guard try store.distrust(keyID: keyID) else {
                throw ValidationError("no trusted key \(keyID) — `kioskd keys list` shows them")
            }
            print("removed \(keyID)")
        }
    }
}
