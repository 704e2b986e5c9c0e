import KioskCore

/// A device's ticket-signing key: `PUT /v1/devices/self/key` (a kiosk registers its own), and an entry of the
/// store's key ring.
public struct DeviceKey: Codable, Sendable, Equatable {
    public var device: DeviceID
    public var keyId: String?
    /// Raw Ed25519 public key, base64.
    public var publicKey: String

    public init(device: DeviceID, keyId: String?, publicKey: String) {
        self.device = device
        self.keyId = keyId
        self.publicKey = publicKey
    }
}

/// `GET /v1/stores/{store}/keys`: the keys of the store's enrolled devices, with the ring's digest.
public struct KeyRingPage: Codable, Sendable, Equatable {
    public var keys: [DeviceKey]
    /// What pages of the log carry as `keyRing` while the ring stays as it is (absent from older servers).
    public var digest: String?

    public init(keys: [DeviceKey], digest: String?) {
        self.keys = keys
        self.digest = digest
    }
}
