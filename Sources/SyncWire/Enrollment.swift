import KioskCore

/// `POST /v1/stores/{store}/devices`: a store manager enrolls a kiosk by its name.
public struct Enrollment: Codable, Sendable, Equatable {
    public var device: DeviceID

    public init(device: DeviceID) {
        self.device = device
    }
}

/// The answer to an ``Enrollment``: the kiosk's credential, shown once (its `[sync] credential_file`).
public struct Enrolled: Codable, Sendable, Equatable {
    public var store: StoreID
    public var device: DeviceID
    public var credential: String

    public init(store: StoreID, device: DeviceID, credential: String) {
        self.store = store
        self.device = device
        self.credential = credential
    }
}
