import Foundation
import HTTPTypes
import KioskCore
import ServiceSupport
import Synchronization

/// Kiosk credentials the device table confirmed in the last few minutes, by their hash: the request pace
/// (``RequestPace``) counts such a request towards its kiosk instead of its address. A store's kiosks usually
/// share one public address with its guest Wi-Fi, and one flooding phone there must not stall their sync.
///
/// Only a credential the database vouched for enters (``Authenticator/requireDevice(_:store:)``), so the
/// table holds at most the enrolled kiosks and a forged token still counts towards its address. An entry lasts
/// ``lifetime``: a revoked kiosk's requests are refused at once by the routes, and are paced by address again
/// within that time.
final class KnownKiosks: Sendable {
    static let lifetime: Duration = .seconds(300)
    private let known = Mutex<[Data: (kiosk: String, until: Timestamp)]>([:])

    /// `credential` belongs to `device` of `store` (the device table said so at `now`).
    func confirmed(_ credential: String, device: DeviceID, of store: StoreID, at now: Timestamp) {
        let hash = Secrets.hash(credential)
        known.withLock { table in
            if table.count > 100_000 { table = table.filter { $0.value.until > now } }
            table[hash] = ("\(store.uuidString)/\(device)", now + Self.lifetime)
        }
    }

    /// The kiosk whose confirmed credential the request carries, or nil (none, unknown or expired).
    func kiosk(of headers: HTTPFields, at now: Timestamp) -> String? {
        guard let token = headers.bearerToken, token.utf8.count <= 512 else { return nil }
        let hash = Secrets.hash(token)
        return known.withLock { table in
            guard let entry = table[hash] else { return nil }
            guard entry.until > now else {
                table[hash] = nil
                return nil
            }
            return entry.kiosk
        }
    }
}

extension HTTPFields {
    /// The token of an `Authorization: Bearer …` header, if there is one.
    var bearerToken: String? {
        guard let value = self[.authorization], value.lowercased().hasPrefix("bearer ") else { return nil }
        let token = value.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
