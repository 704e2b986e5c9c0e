import Crypto
import Foundation
import KioskCore
import Testing

@testable import CLupServer
@testable import Rigs

/// Web Push's cryptography checked by independent implementations: each message clup-server encrypts (RFC 8291,
/// aes128gcm) is decrypted by PyPI's `http_ece` with the subscription's private key, and each VAPID header
/// (RFC 8292) is verified by PyPI's `py_vapid` against the key it names.
@Suite struct PushPayloadTests {
    static var ready: Bool {
        guard let python = HIL.python else { return false }
        return HIL.strict || (try? HIL.run(python, ["-c", "import http_ece, py_vapid"]).status) == 0
    }

    /// Decrypts argv[1] (base64) with the private key argv[2] and auth secret argv[3] (base64); prints base64.
    static let decrypt = """
        import base64, sys, http_ece
        from cryptography.hazmat.primitives.asymmetric import ec
        key = ec.derive_private_key(int.from_bytes(base64.b64decode(sys.argv[2]), 'big'), ec.SECP256R1())
        text = http_ece.decrypt(base64.b64decode(sys.argv[1]), private_key=key,
                                auth_secret=base64.b64decode(sys.argv[3]), version='aes128gcm')
        print(base64.b64encode(text).decode())
        """

    /// Verifies the Authorization header argv[1] (its auth-params' spaces taken out, as py_vapid reads them) and
    /// prints its claims.
    static let verify = """
        import base64, json, sys, py_vapid
        header = sys.argv[1].replace(', ', ',')
        assert py_vapid.Vapid02.verify(header), 'bad signature'
        token = header.split('t=')[1].split(',')[0]
        body = token.split('.')[1]
        print(json.dumps(json.loads(base64.urlsafe_b64decode(body + '=' * (-len(body) % 4)))))
        """

    @Test(.enabled(if: ready, "needs http_ece and py_vapid in .venv-test (make test)"))
    func anotherImplementationReadsWhatTheServerSends() throws {
        let python = try #require(HIL.python)
        for text in ["{\"title\":\"It is your turn\"}", String(repeating: "è", count: PushPayload.maxText / 2)] {
            let browser = P256.KeyAgreement.PrivateKey()
            let auth = Data(SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) })
            let receiver = try #require(
                PushPayload.Receiver(publicKey: browser.publicKey.x963Representation, authSecret: auth)
            )
            let body = try PushPayload.encrypt(Data(text.utf8), for: receiver)
            #expect(body.count <= 4096, "within every push service's limit: \(body.count)")
            let run = try HIL.run(
                python,
                [
                    "-c", Self.decrypt, body.base64EncodedString(), browser.rawRepresentation.base64EncodedString(),
                    auth.base64EncodedString(),
                ]
            )
            #expect(run.status == 0, "\(run.error)")
            let read = Data(base64Encoded: run.output.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(read.map { String(decoding: $0, as: UTF8.self) } == text)
            // Another browser's keys read nothing.
            let stranger = P256.KeyAgreement.PrivateKey()
            let refused = try HIL.run(
                python,
                [
                    "-c", Self.decrypt, body.base64EncodedString(), stranger.rawRepresentation.base64EncodedString(),
                    auth.base64EncodedString(),
                ]
            )
            #expect(refused.status != 0)
        }
        #expect(throws: PushPayload.Failure.tooLong) {
            let receiver = PushPayload.Receiver(
                publicKey: P256.KeyAgreement.PrivateKey().publicKey.x963Representation,
                authSecret: Data(count: 16)
            )!
            _ = try PushPayload.encrypt(Data(count: PushPayload.maxText + 1), for: receiver)
        }
        // Keys that are not a browser's: refused before any arithmetic.
        #expect(PushPayload.Receiver(publicKey: Data(count: 65), authSecret: Data(count: 16)) == nil)
        #expect(
            PushPayload.Receiver(publicKey: Data([4] + [UInt8](repeating: 1, count: 64)), authSecret: Data(count: 16))
                == nil
        )
        let key = P256.KeyAgreement.PrivateKey().publicKey.x963Representation
        #expect(PushPayload.Receiver(publicKey: key, authSecret: Data(count: 15)) == nil)
    }

    @Test(.enabled(if: ready, "needs http_ece and py_vapid in .venv-test (make test)"))
    func aPushServiceVerifiesTheServersVAPIDHeader() throws {
        let python = try #require(HIL.python)
        let secret = SymmetricKey(size: .bits256)
        let vapid = VAPID(secret: secret, subject: "mailto:ops@clup.example")
        #expect(VAPID(secret: secret, subject: "x").publicKey == vapid.publicKey, "one key from one secret")
        let now = Timestamp(milliseconds: 1_796_000_000_000)
        let header = try vapid.authorization(origin: "https://push.example.net", at: now)
        let run = try HIL.run(python, ["-c", Self.verify, header])
        #expect(run.status == 0, "\(run.error)")
        let claims = try #require(
            try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        )
        #expect(claims["aud"] as? String == "https://push.example.net")
        #expect(claims["sub"] as? String == "mailto:ops@clup.example")
        #expect(claims["exp"] as? Int == 1_796_000_000 + 12 * 3600)
        // Signed by another server's key: refused.
        let other = try VAPID(secret: SymmetricKey(size: .bits256), subject: "mailto:ops@clup.example")
            .authorization(origin: "https://push.example.net", at: now)
        let forged = header.replacingOccurrences(of: vapid.publicKey, with: String(other.split(separator: "k=")[1]))
        #expect(try HIL.run(python, ["-c", Self.verify, forged]).status != 0)
    }
}
