import Crypto
import FoundationEssentials

/// The first 4 bytes of SHA-256 of a raw Ed25519 public key: names the key inside a ticket code.
public struct KeyID: Sendable, Hashable, Codable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) {
        precondition(bytes.count == 4, "a key id is 4 bytes")
        self.bytes = bytes
    }

    public init(publicKey: Curve25519.Signing.PublicKey) {
        bytes = Array(SHA256.hash(data: publicKey.rawRepresentation).prefix(4))
    }

    public var description: String { bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
}

/// A device's ticket-signing key (Ed25519).
public struct TicketSigner: Sendable {
    public let privateKey: Curve25519.Signing.PrivateKey
    public let keyID: KeyID

    public init(privateKey: Curve25519.Signing.PrivateKey = .init()) {
        self.privateKey = privateKey
        self.keyID = KeyID(publicKey: privateKey.publicKey)
    }

    /// From the 32 raw bytes kept in the device's state directory.
    public init(rawRepresentation: [UInt8]) throws {
        self.init(privateKey: try Curve25519.Signing.PrivateKey(rawRepresentation: rawRepresentation))
    }

    public var publicKey: Curve25519.Signing.PublicKey { privateKey.publicKey }

    func sign(_ body: [UInt8]) -> [UInt8] {
        // Ed25519 signing fails only on a broken key object, which init already ruled out.
        Array(try! privateKey.signature(for: body))
    }
}

/// The public keys a store's devices sign tickets with, and whose each is: what a door station trusts.
///
/// A key id is 4 bytes, so two keys can share one (a pair is found by brute force in seconds): the ring keeps
/// every key under its id and a code is checked against each, so no key hides another. Who signed a code is
/// the device whose key verified it (``TicketCodec/Claims/signer``): a ticket is valid only under its
/// issuer's key.
public struct KeyRing: Sendable, Equatable {
    public struct Entry: Sendable {
        public var key: Curve25519.Signing.PublicKey
        /// The device that signs with it (nil: a key whose owner the ring was not told).
        public var device: DeviceID?
    }

    private var keys: [KeyID: [Entry]] = [:]

    /// Keys whose owners are not known (tests, tools): a code they verify names no signer.
    public init(_ keys: [Curve25519.Signing.PublicKey] = []) {
        for key in keys { add(key) }
    }

    /// Keys of named devices (what the server's ring and a kiosk's cache say).
    public init(devices: [(device: DeviceID, key: Curve25519.Signing.PublicKey)]) {
        for (device, key) in devices { add(key, device: device) }
    }

    /// Adds a key; the same key again takes the newer owner.
    public mutating func add(_ key: Curve25519.Signing.PublicKey, device: DeviceID? = nil) {
        let id = KeyID(publicKey: key)
        var entries = keys[id, default: []]
        entries.removeAll { $0.key.rawRepresentation == key.rawRepresentation }
        entries.append(Entry(key: key, device: device))
        keys[id] = entries
    }

    /// The first key under `id` (most ids have one).
    public func key(for id: KeyID) -> Curve25519.Signing.PublicKey? { keys[id]?.first?.key }

    /// Every key under `id`.
    public func entries(for id: KeyID) -> [Entry] { keys[id] ?? [] }

    public var count: Int { keys.values.reduce(0) { $0 + $1.count } }

    public static func == (a: Self, b: Self) -> Bool {
        func flat(_ ring: Self) -> Set<String> {
            Set(
                ring.keys.values.joined().map { "\($0.device ?? "")|\($0.key.rawRepresentation.base64EncodedString())" }
            )
        }
        return flat(a) == flat(b)
    }
}
