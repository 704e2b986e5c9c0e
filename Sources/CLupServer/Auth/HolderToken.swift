import Crypto
import Foundation
import HTTPTypes
import KioskCore
import ServiceSupport

/// The anonymous holder token: what a shopper's device keeps (app, or the web page's local storage) to
/// act on the tickets it took — cancel them, and be held to one live ticket per store. It says nothing
/// about the person: 16 random bytes, and a MAC with the server's key so only tokens this server handed
/// out are accepted (a made-up token is refused rather than starting a fresh allowance).
///
/// Sent as the `Clup-Holder` header. The ticket id and the QR are public (others in line can photograph a
/// QR); the holder token never appears in either.
struct HolderTokens: Sendable {
    static let header = "Clup-Holder"
    static let field = HTTPField.Name(header)!
    private let key: SymmetricKey

    init(key: SymmetricKey) {
        self.key = key
    }

    /// A new token.
    func mint() -> String { MACToken.mint(key: key) }

    /// A key to the holder's own status stream of `ticket` (`GET /v1/tickets/{id}/events?key=`), given only to
    /// its holder: a page's `EventSource` cannot send a header, and a URL lands in every proxy's access log, so
    /// what travels there opens that stream and authorises nothing else (the holder token, which cancels, never
    /// leaves a header).
    func streamKey(for ticket: TicketID) -> String {
        MACToken.mint(key: key, binding: Data("stream:\(ticket.uuidString)".utf8))
    }

    /// Whether `value` is a ``streamKey(for:)`` of `ticket`.
    func opensStream(_ value: String, of ticket: TicketID) -> Bool {
        MACToken.isValid(value, key: key, binding: Data("stream:\(ticket.uuidString)".utf8))
    }

    /// The holder a token stands for (its stored form, a hash), or nil for a token this server did not make.
    func holder(_ token: String) -> Holder? {
        MACToken.isValid(token, key: key) ? Holder(hash: Secrets.hash(token)) : nil
    }

    static func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func data(base64url text: Substring) -> Data? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            return nil
        }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

/// A token the server can recognise without storing it: 16 random bytes and the first 16 bytes of their
/// HMAC-SHA256 (with `binding` appended: what the token is bound to, e.g. a user name) under a server key,
/// both base64url, joined by a dot.
enum MACToken {
    /// The longest text read as a token: `mint`'s are 45 bytes; anything longer is refused before it is parsed.
    static let longest = 64

    static func mint(key: SymmetricKey, binding: Data = Data()) -> String {
        let id = SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }
        return HolderTokens.base64url(id) + "." + HolderTokens.base64url(mac(id, binding, key))
    }

    /// Whether `token` is one `mint` made with this key and binding.
    static func isValid(_ token: String, key: SymmetricKey, binding: Data = Data()) -> Bool {
        guard token.utf8.count <= longest else { return false }
        let parts = token.split(separator: ".")
        guard parts.count == 2, let id = HolderTokens.data(base64url: parts[0]), id.count == 16,
            let tag = HolderTokens.data(base64url: parts[1])
        else { return false }
        return Secrets.equal(tag, mac(id, binding, key))
    }

    private static func mac(_ id: Data, _ binding: Data, _ key: SymmetricKey) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: id + binding, using: key)).prefix(16)
    }
}

/// One holder, as the server keeps it: the SHA-256 of its token.
public struct Holder: Sendable, Hashable {
    var hash: Data
}
