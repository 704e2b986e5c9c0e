import KioskCore

/// Pairing a kiosk by the code it prints — the device authorization grant of RFC 8628, as a television pairs.
///
/// 1. A box with no credential asks `POST /v1/pairing` with the name it would like (``PairingRequest``) and gets a
///    ``PairingGrant``: a secret `deviceCode` it keeps, a short `userCode` it prints and shows, where to type it
///    and how long it is valid.
/// 2. A manager types the code in the console (or opens `verificationURIComplete`, the printed QR) and picks the
///    store and role.
/// 3. The box polls `POST /v1/pairing/token` with its device code no faster than `interval` seconds
///    (``PairingPoll``). Until the manager decides it is refused with the RFC's error codes (``PairingRefusal``);
///    then, once, it receives ``Paired``: its credential, its store, its role and the store's key ring.
public struct PairingRequest: Codable, Sendable, Equatable {
    /// The name the kiosk asks to be enrolled under (its host name); the manager sees it before approving.
    public var device: DeviceID
    /// The roles its configuration switches on (a hint the console preselects; the manager decides).
    public var role: KioskRole?

    public init(device: DeviceID, role: KioskRole? = nil) {
        self.device = device
        self.role = role
    }
}

/// The answer to a ``PairingRequest`` (RFC 8628 §3.2, in the API's camel case).
public struct PairingGrant: Codable, Sendable, Equatable {
    /// The box's secret for polling (43 characters); never printed or shown.
    public var deviceCode: String
    /// What the manager types: eight letters and digits without look-alikes, as `BCDF-GH23`.
    public var userCode: String
    /// The console's pairing page.
    public var verificationURI: String
    /// The same with the code filled in (the printed QR).
    public var verificationURIComplete: String
    /// Seconds the code stays valid.
    public var expiresIn: Int
    /// Seconds to wait between polls.
    public var interval: Int

    public init(
        deviceCode: String,
        userCode: String,
        verificationURI: String,
        verificationURIComplete: String,
        expiresIn: Int,
        interval: Int
    ) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresIn = expiresIn
        self.interval = interval
    }
}

/// `POST /v1/pairing/token`'s body.
public struct PairingPoll: Codable, Sendable, Equatable {
    public var deviceCode: String

    public init(deviceCode: String) {
        self.deviceCode = deviceCode
    }
}

/// Why a poll got no credential (RFC 8628 §3.5), in the `reason` of a 400 answer.
public enum PairingRefusal: String, Codable, Sendable, CaseIterable {
    /// Nobody has typed the code yet: poll again after the interval.
    case authorizationPending = "authorization_pending"
    /// Polled faster than the interval: the interval grows by 5 s.
    case slowDown = "slow_down"
    /// The code expired, was used already, or was never given: ask for a new one.
    case expiredToken = "expired_token"
    /// The manager refused this box: ask for a new code only when told to.
    case accessDenied = "access_denied"
}

/// What a paired kiosk receives, once: ``Enrolled`` and the store's key ring, so its door verifies every ticket of
/// the store from the first minute.
public struct Paired: Codable, Sendable, Equatable {
    public var store: StoreID
    public var device: DeviceID
    public var role: KioskRole
    public var credential: String
    public var keys: [DeviceKey]

    public init(_ enrolled: Enrolled, keys: [DeviceKey]) {
        store = enrolled.store
        device = enrolled.device
        role = enrolled.role
        credential = enrolled.credential
        self.keys = keys
    }

    public var enrolled: Enrolled { Enrolled(store: store, device: device, role: role, credential: credential) }
}

/// The other way round, for a door with no printer to print its code: the console shows a QR (``payload(_:)``)
/// holding a device code the manager's choice already approved, and the door's own scanner reads it while the
/// box pairs; the box then collects its credential with that code, as after a poll.
public enum PairingOffer {
    public static let prefix = "CLUP-PAIR:"

    public static func payload(_ deviceCode: String) -> String { prefix + deviceCode }

    /// The device code in a scan, if the scan is a pairing QR.
    public static func deviceCode(in scan: String) -> String? {
        guard scan.hasPrefix(prefix), scan.utf8.count <= prefix.utf8.count + 64 else { return nil }
        let code = String(scan.dropFirst(prefix.count))
        return code.isEmpty ? nil : code
    }
}
