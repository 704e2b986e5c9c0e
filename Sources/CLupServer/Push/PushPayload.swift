import Crypto
import Foundation

/// A Web Push message's body as RFC 8291 has it travel: encrypted for one subscription with the `aes128gcm`
/// content coding (RFC 8188), so the push service that carries it reads nothing. One record: the text, its
/// delimiter and the header (salt, record size, the sender's one-time public key) — at most ``maxText`` bytes of
/// text, so that the whole body stays within the 4,096 bytes every push service accepts.
enum PushPayload {
    /// The bytes of text one message may carry (4,096 less the header's 86, the delimiter and the tag, and some
    /// room): the notices are a sentence and a link.
    static let maxText = 3_000

    /// The subscription's keys, as the browser's `PushSubscription` gives them.
    struct Receiver: Sendable, Equatable {
        /// `p256dh`: the browser's P-256 public key (65 bytes, uncompressed).
        var publicKey: Data
        /// `auth`: the secret the browser shares with the sender only (16 bytes).
        var authSecret: Data

        /// The keys, checked: a point on the curve and a 16-byte secret, or nil.
        init?(publicKey: Data, authSecret: Data) {
            guard publicKey.count == 65, publicKey.first == 4, authSecret.count == 16,
                (try? P256.KeyAgreement.PublicKey(x963Representation: publicKey)) != nil
            else { return nil }
            self.publicKey = publicKey
            self.authSecret = authSecret
        }
    }

    enum Failure: Error { case tooLong }

    /// `text` encrypted for `receiver`; the sender's key and the salt are fresh each time unless given (tests).
    static func encrypt(
        _ text: Data,
        for receiver: Receiver,
        senderKey: P256.KeyAgreement.PrivateKey = .init(),
        salt: Data = Data(SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) })
    ) throws -> Data {
        guard text.count <= maxText else { throw Failure.tooLong }
        let browserKey = try P256.KeyAgreement.PublicKey(x963Representation: receiver.publicKey)
        let shared = try senderKey.sharedSecretFromKeyAgreement(with: browserKey)
        let senderPublic = senderKey.publicKey.x963Representation
        // RFC 8291 §3.4: the input keying material, from the shared secret and the auth secret, bound to both keys.
        let info = Data("WebPush: info".utf8) + [0] + receiver.publicKey + senderPublic
        let keying = shared.hkdfDerivedSymmetricKey(
            using: SHA256.self,
            salt: receiver.authSecret,
            sharedInfo: info,
            outputByteCount: 32
        )
        // RFC 8188 §2.2: the content key and the nonce, from the salt.
        func derive(_ label: String, _ count: Int) -> SymmetricKey {
            HKDF<SHA256>.deriveKey(
                inputKeyMaterial: keying,
                salt: salt,
                info: Data("Content-Encoding: \(label)".utf8) + [0],
                outputByteCount: count
            )
        }
        let nonce = try AES.GCM.Nonce(data: derive("nonce", 12).withUnsafeBytes { Data($0) })
        // One record, the last: the text, then the delimiter 2 (no padding).
        let sealed = try AES.GCM.seal(text + [2], using: derive("aes128gcm", 16), nonce: nonce)
        let recordSize = UInt32(4096)
        var body = salt
        body += withUnsafeBytes(of: recordSize.bigEndian) { Data($0) }
        body.append(UInt8(senderPublic.count))
        body += senderPublic
        body += sealed.ciphertext + sealed.tag
        return body
    }
}
