import Crypto
import Foundation
import KioskCore

/// The server's voluntary application server identification for Web Push (RFC 8292): one P-256 key, made from
/// the server's secret `web-push` (kept in the database like the other server keys: sealed under the storage
/// key, the same for every replica), so a browser's subscription — bound to this key's public half — stays valid
/// across restarts and replicas. Each request to a push service carries a JWT (ES256) for that service's origin,
/// valid 12 hours, and the public key.
struct VAPID: Sendable {
    let key: P256.Signing.PrivateKey
    /// `sub`: how the push service's operator reaches the server's (a `mailto:` or `https:` URL).
    let subject: String

    /// The key made from `secret` (32 bytes; a value that is no valid P-256 scalar — about one in 2^32 — is
    /// hashed again until it is).
    init(secret: SymmetricKey, subject: String) {
        var bytes = secret.withUnsafeBytes { Data($0) }
        var key = try? P256.Signing.PrivateKey(rawRepresentation: bytes)
        while key == nil {
            bytes = Data(SHA256.hash(data: bytes))
            key = try? P256.Signing.PrivateKey(rawRepresentation: bytes)
        }
        self.key = key!
        self.subject = subject
    }

    /// The public key as a page's `applicationServerKey` takes it: uncompressed, base64url.
    var publicKey: String { HolderTokens.base64url(key.publicKey.x963Representation) }

    /// The `Authorization` header for a request to `origin` (`https://host[:port]`), valid from `now` for 12 h.
    func authorization(origin: String, at now: Timestamp) throws -> String {
        func part(_ object: [String: Any]) throws -> String {
            HolderTokens.base64url(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        }
        let expires = now.milliseconds / 1000 + 12 * 3600
        let signed =
            try part(["typ": "JWT", "alg": "ES256"]) + "."
            + part(["aud": origin, "exp": expires, "sub": subject])
        // ES256: the signature as r ‖ s, 64 bytes (JWS), not DER.
        let signature = try key.signature(for: Data(signed.utf8)).rawRepresentation
        return "vapid t=\(signed).\(HolderTokens.base64url(signature)), k=\(publicKey)"
    }
}
