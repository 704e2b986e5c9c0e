import Crypto
import Foundation
import KioskCore
import ServiceSupport
import StationStore
import SyncWire

/// What pairing gave this box (``Paired``), kept as `paired.json` in the state directory with the credential's
/// file mode (600): kioskd starts paired after every restart, with the server it paired with. A configuration
/// that names a credential (`[sync] credential` or `credential_file`, the scripted install) never reads it.
public struct PairedKiosk: Codable, Sendable, Equatable {
    /// The `[sync] server` it paired with: pointed at another server, the box pairs again.
    public var server: String
    public var paired: Paired

    public init(server: String, paired: Paired) {
        self.server = server
        self.paired = paired
    }

    public struct FileError: Error, CustomStringConvertible {
        public let description: String
    }

    public static func path(_ config: KioskConfig) -> String { config.device.stateDirectory + "/paired.json" }

    /// The pairing kept for this configuration's server, or nil (none kept, or one for another server).
    public static func read(for config: KioskConfig) throws(FileError) -> PairedKiosk? {
        let path = path(config)
        guard let mode = KioskConfig.permissions(of: path) else { return nil }
        guard mode & 0o077 == 0 else {
            throw FileError(
                description: "\(path) is readable by others (mode \(String(mode, radix: 8))) — `chmod 600 \(path)`: "
                    + "it holds the kiosk's credential"
            )
        }
        guard let data = FileManager.default.contents(atPath: path),
            let kept = try? JSONDecoder().decode(PairedKiosk.self, from: data)
        else {
            throw FileError(
                description: "\(path) cannot be read — remove it (`kioskd pair --forget`) and pair this kiosk again"
            )
        }
        return kept.server == config.sync.server ? kept : nil
    }

    /// Keeps the pairing (durable when this returns).
    public func write(for config: KioskConfig) throws(FileError) {
        let path = Self.path(config)
        guard let data = try? JSONEncoder().encode(self), DurableFile.replace(path, with: data, mode: 0o600) else {
            throw FileError(
                description: "cannot write \(path) (\(String(cString: strerror(errno)))) — the state directory must "
                    + "be writable by the kiosk user"
            )
        }
    }

    /// The configuration with this pairing's store, name and credential.
    public func applied(to config: KioskConfig) -> KioskConfig {
        var config = config
        config.store.id = paired.store
        config.device.id = paired.device
        config.sync.credential = paired.credential
        return config
    }
}

extension [DeviceKey] {
    /// The keys as the station caches them (a key that is not an Ed25519 public key is left out).
    var ring: [(device: DeviceID, key: Curve25519.Signing.PublicKey)] {
        compactMap { key in
            guard let raw = Data(base64Encoded: key.publicKey),
                let publicKey = try? Curve25519.Signing.PublicKey(rawRepresentation: raw)
            else { return nil }
            return (key.device, publicKey)
        }
    }
}

extension LocalStore {
    /// Caches the key ring a pairing brought (``Paired/keys``), so the door verifies the store's tickets before
    /// its first sync.
    public func adoptRing(of paired: Paired, at now: Timestamp) throws {
        _ = try adoptServerRing(paired.keys.ring, own: try signingKey().keyID, at: now)
    }
}
