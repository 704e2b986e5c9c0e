import Crypto
import FoundationEssentials

/// The signed ticket code a QR carries: a compact binary record signed with Ed25519 by the issuing device,
/// written in Base45 after an upper-case status URL so a phone camera opens the ticket's live page and the QR
/// stays in alphanumeric mode (≤ version 8 at ECC M).
///
/// Record, version 1, big-endian (118 bytes, 177 Base45 characters):
///
/// | bytes  | field                                              |
/// |--------|----------------------------------------------------|
/// | 0      | format version (1)                                 |
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
    public static let version: UInt8 = 1
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
        return prefix + Base45.encode(body + signer.sign(body))
    }

    /// Checks a scanned text: our prefix, well-formed, signed by a key of `keyRing`, for `store`.
    public static func decode(
        _ text: String,
        prefix: String,
        keyRing: KeyRing,
        store: StoreID
    ) throws(DecodeError) -> Claims {
        guard text.hasPrefix(prefix) else { throw .notATicket }
        guard let bytes = Base45.decode(String(text.dropFirst(prefix.count))) else { throw .malformed }
        guard !bytes.isEmpty else { throw .truncated }
        guard bytes[0] == version else {
            if bytes.count < length { throw .truncated }
            throw .unsupportedVersion(bytes[0])
        }
        guard bytes.count >= length else { throw .truncated }
        guard bytes.count == length else { throw .malformed }
        let body = Array(bytes[0..<bodyLength])
        let signature = Array(bytes[bodyLength...])
        let keyID = KeyID(bytes: Array(body[2..<6]))
        let claimedStore = UUID(bytes: Array(body[6..<22]))
        guard let key = keyRing.key(for: keyID) else {
            // Refused either way; naming the other store tells the customer more than "unknown device".
            if claimedStore != store { throw .wrongStore(claimedStore) }
            throw .unknownKey(keyID)
        }
        guard key.isValidSignature(signature, for: body) else { throw .badSignature }
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
            keyID: keyID
        )
    }

    /// A status URL prefix must be upper case (QR alphanumeric mode) and short enough for version 8.
    public static func isValidPrefix(_ prefix: String) -> Bool {
        prefix.utf8.count <= maxPrefixLength && prefix.utf8.allSatisfy { Base45.values[$0] != nil }
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
}
