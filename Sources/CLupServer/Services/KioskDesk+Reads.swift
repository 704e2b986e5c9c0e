import Crypto
import Foundation
import KioskCore
import SyncWire

extension KioskDesk {
    /// A page of the store's log after `after` (long-polled up to `wait`), with what the store decides that
    /// its kiosks follow: the key ring's digest, time zone, hours, wait model, settings and the server's time.
    func page(of store: StoreID, after: Int64, wait: Duration, limit: Int) async throws -> EventPage {
        let events = try await logs.events(store: store, after: after, wait: wait, limit: limit)
        let live = logs.store(store)
        return EventPage(
            events: Array(EventPage.fitting(events)),
            last: live?.lastSequence ?? 0,
            keyRing: Self.digest(try await logs.deviceKeys(of: store)),
            timeZone: live?.record.profile.timeZone,
            hours: live?.record.profile.hours,
            model: live?.estimator.model,
            serverTime: logs.clock.now().milliseconds,
            settings: live.map { Self.settings($0.record.profile, callWindow: logs.callWindow) }
        )
    }

    /// The store's key ring: the server's own key for app tickets and every enrolled kiosk's registered key.
    func keyRing(of store: StoreID) async throws -> KeyRingPage {
        let keys = try await logs.deviceKeys(of: store)
        return KeyRingPage(keys: keys, digest: Self.digest(keys))
    }

    /// The sequence of the store's log's last event (0 for none).
    func last(of store: StoreID) -> Int64 { logs.store(store)?.lastSequence ?? 0 }

    /// Registers the kiosk's own signing key (`key`, sent as `DeviceKey`), refusing another device's name and a
    /// key whose 4-byte id another kiosk of the store has.
    func register(_ key: DeviceKey, from kiosk: KioskGrant) async throws {
        guard let raw = Data(base64Encoded: key.publicKey), raw.count == 32,
            let publicKey = try? Curve25519.Signing.PublicKey(rawRepresentation: raw)
        else { throw Refusal.invalid("a raw Ed25519 public key in base64 (44 characters)", field: "publicKey") }
        guard key.device == kiosk.device else {
            throw Refusal(.forbidden, "the credential is for device '\(kiosk.device)'", field: "device")
        }
        // A key id is 4 bytes: another device's key under the same id (or the same key, copied from the ring)
        // would make doors take one device's tickets for the other's. Honest keys collide once in billions; a
        // kiosk refused here makes a new key.
        let id = KeyID(publicKey: publicKey)
        if try await logs.keyRing(of: kiosk.store).contains(where: {
            $0.device != kiosk.device && KeyID(publicKey: $0.key) == id
        }) {
            throw Refusal(
                .conflict,
                "another kiosk of this store has registered this key, or one of the same id \(id) — the store's "
                    + "manager should revoke the kiosk that copied it",
                field: "publicKey"
            )
        }
        try await database.setKey(publicKey, device: kiosk.device, store: kiosk.store)
        logs.keyRingChanged(kiosk.store)
    }

    /// What the store decides that its kiosks follow, as a page of its log carries it.
    static func settings(_ profile: StoreProfile, callWindow: Duration) -> StoreSettings {
        StoreSettings(
            name: profile.name,
            languages: profile.languages,
            callWindowMinutes: Int(callWindow.components.seconds / 60),
            averageVisitMinutes: profile.averageVisitMinutes,
            largePrint: profile.largePrint,
            voiceVolume: profile.voiceVolume,
            footer: profile.footer,
            recallMinutes: profile.recallMinutes,
            recalls: profile.recalls,
            stopTicketsPastClosing: profile.stopTicketsPastClosing
        )
    }

    /// A short digest of a key ring (16 hex digits): a kiosk fetches the ring when it changes, so a new kiosk's
    /// key arrives, and a revoked one's leaves, with the next page of the log.
    static func digest(_ keys: [DeviceKey]) -> String {
        let text = keys.map { "\($0.device) \($0.publicKey)\n" }.sorted().joined()
        return SHA256.hash(data: Data(text.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}
