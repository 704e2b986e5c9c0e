import Foundation
import KioskCore
import ServiceSupport
import SyncWire

/// One box's pairing as the server keeps it (RFC 8628's device authorization, ``PairingGrant``), and its rules as
/// a pure machine: what a poll answers and how the record changes with it, when a manager may decide. Storage
/// keeps the record and changes it only from the state the machine saw (single use holds across replicas).
///
/// States: `pending` until a manager decides, then `approved` (store and role chosen) or `denied`; an approved
/// pairing becomes `delivered` at the poll that collects the credential, and nothing is ever delivered twice.
/// Every state ends at `expiresAt`: a code nobody typed, or an approval nobody collected, is worth nothing after
/// it.
public struct Pairing: Sendable, Equatable, Codable {
    public enum State: String, Sendable, Codable {
        case pending, approved, denied, delivered
    }

    /// SHA-256 of the box's device code (a leaked database holds no usable code).
    var deviceCodeHash: Data
    /// Eight letters of ``alphabet``, without the dash shown between its halves.
    var userCode: String
    /// The name the box asked to be enrolled under, and the roles it asked for.
    var device: DeviceID
    var askedRole: KioskRole?
    /// The client address that asked (bounded per address).
    var address: String
    var createdAt: Timestamp
    var expiresAt: Timestamp
    /// Seconds the box must leave between polls; grows by 5 at each poll that comes too soon.
    var interval: Int
    var lastPollAt: Timestamp?
    var state: State
    /// What the manager chose, once approved.
    var store: StoreID?
    var role: KioskRole?
    var decidedBy: String?

    /// How long a code is valid (RFC 8628 suggests minutes; long enough to walk to the back office).
    static let lifetime: Duration = .seconds(600)
    static let firstInterval = 5
    static let maxInterval = 60
    /// RFC 8628 §6.1's base-20 letters: no vowels (no words), no 0/O or 1/I to confuse; 20⁸ ≈ 2.6 × 10¹⁰ codes.
    static let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
    static let codeLength = 8

    /// A new pending pairing for `device`, its device code's hash and a fresh user code.
    static func new(
        deviceCode: String,
        device: DeviceID,
        role: KioskRole?,
        address: String,
        at now: Timestamp
    ) -> Pairing {
        var generator = SystemRandomNumberGenerator()
        let code = String((0..<codeLength).map { _ in alphabet.randomElement(using: &generator)! })
        return Pairing(
            deviceCodeHash: Secrets.hash(deviceCode),
            userCode: code,
            device: device,
            askedRole: role,
            address: address,
            createdAt: now,
            expiresAt: now + lifetime,
            interval: firstInterval,
            lastPollAt: nil,
            state: .pending
        )
    }

    /// A pairing a manager offers from the console to a door with no printer (``PairingOffer``): approved from
    /// the start, for the name, store and role chosen; the door collects it with the device code it scans.
    static func offered(
        deviceCode: String,
        device: DeviceID,
        store: StoreID,
        role: KioskRole,
        by manager: String,
        at now: Timestamp
    ) -> Pairing {
        new(deviceCode: deviceCode, device: device, role: role, address: offerAddress(manager), at: now)
            .decided(store: store, role: role, by: manager)
    }

    /// What an offer counts under instead of a client address: its manager (bounded like an address).
    static func offerAddress(_ manager: String) -> String { "console:" + manager.prefix(64) }

    /// The code as printed and shown: `BCDF-GHJK`.
    static func display(_ code: String) -> String {
        code.count == codeLength ? "\(code.prefix(4))-\(code.suffix(4))" : code
    }

    /// What a person typed, as stored (upper case, without spaces or dashes), or nil when it cannot be a code:
    /// checked in bytes first, so a megabyte of input costs nothing.
    static func normalized(_ typed: String) -> String? {
        guard typed.utf8.count <= 32 else { return nil }
        let letters = typed.uppercased().filter { $0 != "-" && $0 != " " }
        guard letters.count == codeLength, letters.allSatisfy(alphabet.contains) else { return nil }
        return letters
    }

    enum PollAnswer: Equatable {
        case refuse(PairingRefusal)
        /// Approved: enroll the box now and give it its credential (the record is `delivered`).
        case deliver(store: StoreID, role: KioskRole)
    }

    /// A poll at `now`: the record as it is after the poll, and the answer.
    func polled(at now: Timestamp) -> (Pairing, PollAnswer) {
        if state == .delivered || now >= expiresAt { return (self, .refuse(.expiredToken)) }
        var next = self
        if let last = lastPollAt, now - last < .seconds(interval) {
            next.interval = min(interval + 5, Self.maxInterval)
            next.lastPollAt = now
            return (next, .refuse(.slowDown))
        }
        next.lastPollAt = now
        switch state {
        case .pending: return (next, .refuse(.authorizationPending))
        case .denied: return (next, .refuse(.accessDenied))
        case .approved:
            guard let store, let role else { return (next, .refuse(.accessDenied)) }
            next.state = .delivered
            return (next, .deliver(store: store, role: role))
        case .delivered: return (self, .refuse(.expiredToken))
        }
    }

    /// Whether a manager may still decide at `now`.
    func awaitsDecision(at now: Timestamp) -> Bool { state == .pending && now < expiresAt }

    /// The record once a manager approved it for `store` in `role`, or denied it (nil `store`).
    func decided(store: StoreID?, role: KioskRole, by manager: String) -> Pairing {
        var next = self
        next.state = store == nil ? .denied : .approved
        next.store = store
        next.role = store == nil ? nil : role
        next.decidedBy = manager
        return next
    }
}
