import Crypto
import Foundation
import Hummingbird
import KioskCore
import SyncWire

/// The store event log for kiosks: idempotent batch append, a long-polled read from a sequence number (with
/// the key ring's digest), the store's key ring, and a device registering its own signing key.
struct EventRoutes {
    let database: any ServerStorage
    let logs: StoreQueues
    let auth: Authenticator
    let desk: KioskDesk

    func register(on router: some RouterMethods<ServerContext>) {
        router.post("v1/stores/:store/events") { request, context -> AppendedEvents in
            let store = try context.parameters.require("store", as: UUID.self)
            let kiosk = try await auth.requireDevice(request, store: store)
            let batch = try await request.decode(EventBatch.self, limit: 4 << 20)
            guard batch.events.count <= EventBatch.maxEvents else {
                throw Refusal.invalid("at most \(EventBatch.maxEvents) events per request", field: "events")
            }
            let appended = try await desk.take(batch.events, from: kiosk)
            return AppendedEvents(
                appended: appended.map { AppendedEvents.Event(id: $0.id, sequence: $0.sequence, new: $0.new) },
                last: logs.store(store)?.lastSequence ?? 0
            )
        }
        router.get("v1/stores/:store/events") { request, context -> EventPage in
            let store = try context.parameters.require("store", as: UUID.self)
            _ = try await auth.requireDevice(request, store: store)
            let after = try Self.query(request, "after", default: 0, in: 0...Int64.max)
            let wait = try Self.query(request, "wait", default: 0, in: 0...60)
            let limit = try Self.query(request, "limit", default: 1000, in: 1...5000)
            let events = try await logs.events(store: store, after: after, wait: .seconds(wait), limit: Int(limit))
            return EventPage(
                events: Array(EventPage.fitting(events)),
                last: logs.store(store)?.lastSequence ?? 0,
                keyRing: Self.digest(try await keyRing(store)),
                timeZone: logs.store(store)?.record.profile.timeZone,
                hours: logs.store(store)?.record.profile.hours,
                model: logs.store(store)?.estimator.model,
                serverTime: logs.clock.now().milliseconds,
                settings: logs.store(store).map { Self.settings($0.record.profile, callWindow: logs.callWindow) }
            )
        }
        router.get("v1/stores/:store/keys") { request, context -> KeyRingPage in
            let store = try context.parameters.require("store", as: UUID.self)
            _ = try await auth.requireDevice(request, store: store)
            let keys = try await keyRing(store)
            return KeyRingPage(keys: keys, digest: Self.digest(keys))
        }
        router.put("v1/devices/self/key") { request, _ -> Response in
            let kiosk = try await auth.requireDevice(request)
            let (store, device) = (kiosk.store, kiosk.device)
            let body = try await request.decode(DeviceKey.self)
            guard let raw = Data(base64Encoded: body.publicKey), raw.count == 32,
                let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw)
            else { throw Refusal.invalid("a raw Ed25519 public key in base64 (44 characters)", field: "publicKey") }
            guard body.device == device else {
                throw Refusal(.forbidden, "the credential is for device '\(device)'", field: "device")
            }
            // A key id is 4 bytes: another device's key under the same id (or the same key, copied from the
            // ring) would make doors take one device's tickets for the other's. Honest keys collide once in
            // billions; a kiosk refused here makes a new key.
            let id = KeyID(publicKey: key)
            if try await logs.keyRing(of: store).contains(where: {
                $0.device != device && KeyID(publicKey: $0.key) == id
            }) {
                throw Refusal(
                    .conflict,
                    "another kiosk of this store has registered this key, or one of the same id \(id) — the "
                        + "store's manager should revoke the kiosk that copied it",
                    field: "publicKey"
                )
            }
            try await database.setKey(key, device: device, store: store)
            return Response(status: .noContent)
        }
    }

    /// The store's key ring: the server's own key for app tickets and every enrolled kiosk's registered key.
    private func keyRing(_ store: StoreID) async throws -> [DeviceKey] { try await logs.deviceKeys(of: store) }

    /// What the store decides that its kiosks follow, as a page of its log carries it.
    static func settings(_ profile: StoreProfile, callWindow: Duration) -> StoreSettings {
        StoreSettings(
            name: profile.name,
            languages: profile.languages,
            callWindowMinutes: Int(callWindow.components.seconds / 60),
            averageVisitMinutes: profile.averageVisitMinutes,
            largePrint: profile.largePrint,
            voiceVolume: profile.voiceVolume,
            footer: profile.footer
        )
    }

    /// A short digest of a key ring (16 hex digits): a kiosk fetches the ring when it changes, so a new kiosk's
    /// key arrives, and a revoked one's leaves, with the next page of the log.
    static func digest(_ keys: [DeviceKey]) -> String {
        let text = keys.map { "\($0.device) \($0.publicKey)\n" }.sorted().joined()
        return SHA256.hash(data: Data(text.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    static func query(
        _ request: Request,
        _ name: String,
        default value: Int64,
        in range: ClosedRange<Int64>
    ) throws(Refusal)
        -> Int64
    {
        guard let text = request.uri.queryParameters[name[...]] else { return value }
        guard let number = Int64(String(text)), range.contains(number) else {
            throw Refusal.invalid("must be a whole number in \(range.lowerBound)…\(range.upperBound)", field: name)
        }
        return number
    }
}
