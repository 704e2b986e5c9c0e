import Crypto
import Foundation

/// How stores' signing keys sit in the database: sealed with AES-256-GCM under a storage key read from a file
/// (`--storage-key-file`; the unit passes `/etc/clup-server/storage-key` as a systemd credential), so a copy
/// of the database — a backup, a replica's disk — cannot forge a store's tickets without that file. A key
/// stored before a storage key was configured (raw, 32 bytes) still reads, and is sealed at the next start.
///
/// Rotation: write a new key file, start every replica with it as `--storage-key-file` and the old one as
/// `--previous-storage-key-file`; each start seals the keys it reads with the old key under the new one. Once
/// every replica has started so, the old file can go.
public struct KeyVault: Sendable {
    let current: SymmetricKey?
    let previous: [SymmetricKey]

    /// No storage key: keys are stored raw (a warning at start says so).
    public static let none = KeyVault(current: nil, previous: [])

    /// Marks a sealed key (raw Curve25519 keys are 32 bytes; a sealed one is this byte, then nonce, text, tag).
    static let sealedVersion: UInt8 = 1

    init(current: SymmetricKey?, previous: [SymmetricKey]) {
        self.current = current
        self.previous = previous
    }

    /// The vault of `keyFile` (32 random bytes: raw, or in hex or base64 — `openssl rand -hex 32`) and the
    /// previous keys still to read with.
    public init(keyFile: String?, previousKeyFiles: [String] = []) throws {
        self.init(current: try keyFile.map(Self.key), previous: try previousKeyFiles.map(Self.key))
    }

    public var isConfigured: Bool { current != nil }

    static func key(_ path: String) throws -> SymmetricKey {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StorageFailure(description: "\(path): cannot read the storage key — check the file and its owner")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.count == 64, let bytes = Self.hex(text) { return SymmetricKey(data: bytes) }
        if let bytes = Data(base64Encoded: text), bytes.count == 32 { return SymmetricKey(data: bytes) }
        if data.count == 32 { return SymmetricKey(data: data) }
        throw StorageFailure(
            description: "\(path): a storage key is 32 random bytes (raw, hex or base64) — make one with "
                + "`openssl rand -hex 32`"
        )
    }

    private static func hex(_ text: String) -> Data? {
        var bytes = Data()
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }

    /// What to store for a raw signing key.
    func seal(_ raw: Data) throws -> Data {
        guard let current else { return raw }
        let box = try AES.GCM.seal(raw, using: current)
        guard let combined = box.combined else { throw StorageFailure(description: "cannot seal a signing key") }
        return Data([Self.sealedVersion]) + combined
    }

    /// The raw signing key of what is stored.
    func open(_ stored: Data) throws -> Data {
        guard stored.count > 32, stored.first == Self.sealedVersion else { return stored }
        let box = try AES.GCM.SealedBox(combined: stored.dropFirst())
        for key in [current].compactMap({ $0 }) + previous {
            if let raw = try? AES.GCM.open(box, using: key) { return raw }
        }
        throw StorageFailure(
            description: "a store's signing key is sealed with a storage key this server was not given — pass it "
                + "as --storage-key-file (or, while rotating, --previous-storage-key-file)"
        )
    }

    /// Whether `stored` should be sealed again: raw, or sealed with a previous key.
    func needsSealing(_ stored: Data) -> Bool {
        guard let current else { return false }
        guard stored.count > 32, stored.first == Self.sealedVersion,
            let box = try? AES.GCM.SealedBox(combined: stored.dropFirst())
        else { return true }
        return (try? AES.GCM.open(box, using: current)) == nil
    }
}
