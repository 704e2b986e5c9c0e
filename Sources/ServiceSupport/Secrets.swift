import Crypto
import Foundation

/// Random tokens and their stored form.
public enum Secrets {
    /// 32 random bytes, base64url without padding.
    public static func token() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// What the database keeps of a token: its SHA-256 (a leaked database holds no usable credential).
    public static func hash(_ token: String) -> Data {
        Data(SHA256.hash(data: Data(token.utf8)))
    }

    /// Compares secrets (hashes, derived keys) in time that does not depend on where they differ.
    public static func equal(_ a: Data, _ b: Data) -> Bool {
        a.count == b.count && zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
