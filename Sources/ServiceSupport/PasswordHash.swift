import Crypto
import CryptoExtras
import Foundation

/// A password as stored: scrypt (N = 2^14, r = 8, p = 1: about 16 MB and tens of milliseconds per guess) with a
/// random 16-byte salt. The password itself is never kept. clup-server keeps managers' hashes in its database;
/// kioskd keeps its manager page's in `kioskd.toml` as ``text`` (`kioskd manager-password` makes it).
public struct PasswordHash: Sendable, Equatable {
    public var hash: Data
    public var salt: Data

    static let rounds = 1 << 14

    public init(password: String) throws {
        var salt = Data(count: 16)
        salt.withUnsafeMutableBytes { buffer in
            var rng = SystemRandomNumberGenerator()
            for i in buffer.indices { buffer[i] = UInt8.random(in: 0...255, using: &rng) }
        }
        self.salt = salt
        self.hash = try Self.derive(password, salt: salt)
    }

    public init(hash: Data, salt: Data) {
        self.hash = hash
        self.salt = salt
    }

    /// `scrypt:SALT:HASH`, both base64: the form a configuration file keeps.
    public var text: String { "scrypt:\(salt.base64EncodedString()):\(hash.base64EncodedString())" }

    /// The hash ``text`` wrote; nil for anything else (a password typed in clear, a truncated line).
    public init?(text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "scrypt",
            let salt = Data(base64Encoded: String(parts[1])), salt.count == 16,
            let hash = Data(base64Encoded: String(parts[2])), hash.count == 32
        else { return nil }
        self.init(hash: hash, salt: salt)
    }

    static func derive(_ password: String, salt: Data) throws -> Data {
        let key = try KDF.Scrypt.deriveKey(
            from: Data(password.utf8),
            salt: salt,
            outputByteCount: 32,
            rounds: rounds,
            blockSize: 8,
            parallelism: 1
        )
        return key.withUnsafeBytes { Data($0) }
    }

    /// Constant-time comparison of a candidate password's hash with the stored one.
    public func matches(_ password: String) -> Bool {
        guard let candidate = try? Self.derive(password, salt: salt) else { return false }
        return Secrets.equal(candidate, hash)
    }
}
