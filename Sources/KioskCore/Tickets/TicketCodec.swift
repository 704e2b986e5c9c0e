import Crypto
import FoundationEssentials

/// The signed ticket code a QR carries: a compact binary record signed with Ed25519 by the issuing device,
/// written after an upper-case status URL in characters that are both QR-alphanumeric (the QR stays in
/// alphanumeric mode, ≤ version 8 at ECC M) and allowed in a URL's path (``QRAlphanumeric/url42``), so a phone
/// camera opens one URL, the ticket's live page, whose last path segment is the whole code.
///
/// Format 2 (written since 2026-11-23) is format 1's record in that alphabet; format 1 was in Base45, whose
/// space, `%` and `/` broke the URL. Codes of both formats are read: the record's first byte says which.
///
/// Record, big-endian (118 bytes, 177 characters):
///
/// | bytes  | field                                              |
/// |--------|----------------------------------------------------|
/// | 0      | format version (2; 1 in Base45)                    |
/// | 1      | kind: 0 paper, 1 app, 2 booking                    |
/// | 2-5    | key id: first 4 bytes of SHA-256 of the public key |
/// | 6-21   | store id                                           |
/// | 22-37  | ticket id                                          |
/// | 38-41  | issued at, seconds since 1970                      |
/// | 42-45  | valid from (0: from issue)                         |
/// | 46-49  | valid until (0: no limit)                          |
/// | 50-51  | code prefix, ASCII, right-padded with 0            |
/// | 52-53  | code number                                        |
/// | 54-117 | Ed25519 signature of bytes 0-53                    |
public enum TicketCodec {
    public static let version: UInt8 = 2
    /// The text forms read, newest first: each format version and its alphabet.
    static let forms: [(version: UInt8, alphabet: QRAlphanumeric)] = [(2, .url42), (1, .base45)]
    static let bodyLength = 54
    static let length = bodyLength + 64
    /// QR version 8 at ECC M holds 221 alphanumeric characters; the code takes 177 of them.
    public static let maxPrefixLength = 221 - 177

    /// What a QR says about a ticket, once its signature checked out.
    public struct Claims: Sendable, Equatable {
        public var kind: TicketKind
        public var store: StoreID
        public var ticket: TicketID
        public var code: TicketCode
        public var issuedAt: Timestamp
        public var validFrom: Timestamp?
        public var validUntil: Timestamp?
        public var keyID: KeyID
        /// The device whose key verified the signature, if the key ring names it: a code is valid only for a
        /// ticket that device issued (``Admission/decide(_:queue:now:policy:)``).
        public var signer: DeviceID?

        /// The time that says which business day the ticket is of: a booking's slot start (where it is valid
        /// from), else its issue — as ``Ticket``'s own day time.
        public var dayTime: Timestamp { validFrom ?? issuedAt }
    }

    public enum DecodeError: Error, Sendable, Equatable, CustomStringConvertible {
        /// Not one of our codes at all (another QR, a URL of someone else, random text).
        case notATicket
        /// Our prefix, but the rest is damaged: bad characters or a length that cannot be.
        case malformed
        /// Shorter than a whole code: the scan was cut off.
        case truncated
        case unsupportedVersion(UInt8)
        /// Signed by a key this store does not know (an old device, or a forgery).
        case unknownKey(KeyID)
        /// The signature does not match the content: altered or forged.
        case badSignature
        /// A valid ticket of another store.
        case wrongStore(StoreID)

        public var description: String {
            switch self {
            case .notATicket: return "not a CLup ticket"
            case .malformed: return "damaged code — ask the customer to smooth the ticket or brighten the screen"
            case .truncated: return "incomplete scan — scan again"
            case .unsupportedVersion(let v): return "ticket format \(v) is newer than this kiosk — update kioskd"
            case .unknownKey: return "signed by an unknown device — not a ticket of this store"
            case .badSignature: return "forged or altered ticket"
            case .wrongStore: return "ticket of another store"
            }
        }
    }

    /// The QR text for a ticket, signed with `key`.
    public static func encode(
        _ ticket: Ticket,
        validFrom: Timestamp? = nil,
        validUntil: Timestamp? = nil,
        signer: TicketSigner,
        prefix: String
    )
        -> String
    {
        var body = [UInt8]()
        body.reserveCapacity(length)
        body.append(version)
        body.append(ticket.kind.rawValue)
        body += signer.keyID.bytes
        body += ticket.store.bytes
        body += ticket.id.bytes
        body += be32(UInt32(clamping: ticket.issuedAt.seconds))
        body += be32(UInt32(clamping: validFrom?.seconds ?? 0))
        body += be32(UInt32(clamping: validUntil?.seconds ?? 0))
        let prefixBytes = Array(ticket.code.prefix.utf8.prefix(2))
        body += prefixBytes + [UInt8](repeating: 0, count: 2 - prefixBytes.count)
        let number = UInt16(clamping: ticket.code.number)
        body += [UInt8(number >> 8), UInt8(number & 0xFF)]
        return prefix + text(of: body + signer.sign(body))
    }

    /// A signed record in the current text form (without the status URL).
    public static func text(of record: [UInt8]) -> String { QRAlphanumeric.url42.encode(record) }

    /// The signed record a code's text (without the status URL) holds, in whichever form it was written;
    /// nil when it is in none.
    public static func record(of text: Substring) -> [UInt8]? {
        for form in forms {
            if let bytes = form.alphabet.decode(text), bytes.first == form.version { return bytes }
        }
        return QRAlphanumeric.url42.decode(text) ?? QRAlphanumeric.base45.decode(text)
    }

    /// The store a code's text (without the status URL) says it is of, before any check: which key ring to
    /// check it with.
    public static func claimedStore(of text: Substring) -> StoreID? {
        guard let record = record(of: text), record.count == length else { return nil }
        return UUID(bytes: Array(record[6..<22]))
    }

    /// Checks a scanned text: our prefix, well-formed, signed by a key of `keyRing`, for `store`.
    public static func decode(
        _ text: String,
        prefix: String,
        keyRing: KeyRing,
        store: StoreID
    ) throws(DecodeError) -> Claims {
        guard text.hasPrefix(prefix) else { throw .notATicket }
        let payload = text.dropFirst(prefix.count)
        // The newest form whose alphabet reads the text and whose record says its version; a format-1 code
        // that the new alphabet happens to read as version 2 fails its signature there and is read as Base45.
        var refusal: DecodeError?
        for form in forms {
            guard let bytes = form.alphabet.decode(payload), bytes.first == form.version else { continue }
            do {
                return try claims(bytes, keyRing: keyRing, store: store)
            } catch {
                refusal = refusal ?? error
            }
        }
        if let refusal { throw refusal }
        guard let bytes = QRAlphanumeric.url42.decode(payload) ?? QRAlphanumeric.base45.decode(payload) else {
            throw .malformed
        }
        guard !bytes.isEmpty, bytes.count >= length else { throw .truncated }
        throw .unsupportedVersion(bytes[0])
    }

    /// The claims of a whole record of a known format.
    private static func claims(_ bytes: [UInt8], keyRing: KeyRing, store: StoreID) throws(DecodeError) -> Claims {
        guard bytes.count >= length else { throw .truncated }
        guard bytes.count == length else { throw .malformed }
        let body = Array(bytes[0..<bodyLength])
        let signature = Array(bytes[bodyLength...])
        let keyID = KeyID(bytes: Array(body[2..<6]))
        let claimedStore = UUID(bytes: Array(body[6..<22]))
        let candidates = keyRing.entries(for: keyID)
        guard !candidates.isEmpty else {
            // Refused either way; naming the other store tells the customer more than "unknown device".
            if claimedStore != store { throw .wrongStore(claimedStore) }
            throw .unknownKey(keyID)
        }
        guard let signer = candidates.first(where: { $0.key.isValidSignature(signature, for: body) }) else {
            throw .badSignature
        }
        guard let kind = TicketKind(rawValue: body[1]) else { throw .malformed }
        guard claimedStore == store else { throw .wrongStore(claimedStore) }
        let prefixBytes = body[50..<52].filter { $0 != 0 }
        let code = TicketCode(
            prefix: String(decoding: prefixBytes, as: UTF8.self),
            number: Int(body[52]) << 8 | Int(body[53])
        )
        func time(_ offset: Int) -> Timestamp? {
            let s =
                UInt32(body[offset]) << 24 | UInt32(body[offset + 1]) << 16 | UInt32(body[offset + 2]) << 8
                | UInt32(body[offset + 3])
            return s == 0 ? nil : Timestamp(seconds: Int64(s))
        }
        return Claims(
            kind: kind,
            store: claimedStore,
            ticket: UUID(bytes: Array(body[22..<38])),
            code: code,
            issuedAt: time(38) ?? Timestamp(seconds: 0),
            validFrom: time(42),
            validUntil: time(46),
            keyID: keyID,
            signer: signer.device
        )
    }

    /// A status URL prefix must be upper case (QR alphanumeric mode) and short enough for version 8.
    public static func isValidPrefix(_ prefix: String) -> Bool {
        prefix.utf8.count <= maxPrefixLength && QRAlphanumeric.base45.contains(allOf: prefix)
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
}
