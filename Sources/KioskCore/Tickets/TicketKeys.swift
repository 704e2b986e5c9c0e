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

/// The public keys a store's devices sign tickets with: what a door station trusts.
public struct KeyRing: Sendable, Equatable {
    private var keys: [KeyID: Curve25519.Signing.PublicKey] = [:]

    public init(_ keys: [Curve25519.Signing.PublicKey] = []) {
        for key in keys { add(key) }
    }

    public mutating func add(_ key: Curve25519.Signing.PublicKey) {
        keys[KeyID(publicKey: key)] = key
    }

    public func key(for id: KeyID) -> Curve25519.Signing.PublicKey? { keys[id] }

    public var count: Int { keys.count }

    public static func == (a: Self, b: Self) -> Bool {
        a.keys.mapValues(\.rawRepresentation) == b.keys.mapValues(\.rawRepresentation)
    }
}
