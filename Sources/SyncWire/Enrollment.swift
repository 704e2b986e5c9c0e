import KioskCore

/// `POST /v1/stores/{store}/devices`: a store manager enrolls a kiosk by its name, in a role (what its
/// credential may write: a printer's events, a door's, or both; both when not said, as before roles).
public struct Enrollment: Codable, Sendable, Equatable {
    public var device: DeviceID
    public var role: KioskRole?

    public init(device: DeviceID, role: KioskRole? = nil) {
        self.device = device
        self.role = role
    }
}

/// The answer to an ``Enrollment``: the kiosk's credential, shown once (its `[sync] credential_file`), and
/// the role it was enrolled in.
public struct Enrolled: Codable, Sendable, Equatable {
    public var store: StoreID
    public var device: DeviceID
    public var role: KioskRole
    public var credential: String

    public init(store: StoreID, device: DeviceID, role: KioskRole = .both, credential: String) {
        self.store = store
        self.device = device
        self.role = role
        self.credential = credential
    }
}
