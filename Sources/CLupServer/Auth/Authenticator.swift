import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import KioskCore
import NIOCore
import ServiceSupport
import SyncWire

/// Who may call what: the system manager (the admin token from the configuration), store managers (a
/// session token from `POST /v1/login`), and kiosks (their enrollment credential, which ties them to one
/// store and one device id). Wrong or missing credentials are
/// a 401 that does not say which part was wrong. A wrong admin or manager token counts against its address as a
/// wrong password does (``LoginThrottle``): past ten, the address waits (429) before any token is checked.
public struct Authenticator: Sendable {
    let adminTokenHash: Data
    let database: any ServerStorage
    /// When each kiosk last called (every request it authenticates counts).
    let contacts = DeviceContacts()
    /// Credentials confirmed here, for the request pace.
    let kiosks = KnownKiosks()
    let throttle: LoginThrottle
    let clients: ClientAddress
    /// Kiosks of an older sync protocol are answered 426 (``SyncProtocol``).
    let oldestKioskProtocol: Int

    init(
        adminToken: String,
        database: any ServerStorage,
        throttle: LoginThrottle,
        clients: ClientAddress,
        oldestKioskProtocol: Int = SyncProtocol.oldestServedByDefault
    ) {
        self.oldestKioskProtocol = oldestKioskProtocol
        self.adminTokenHash = Secrets.hash(adminToken)
        self.database = database
        self.throttle = throttle
        self.clients = clients
    }

    /// The admin token's holder, or 401 (429 while the address waits for its wrong guesses).
    func requireAdmin(_ request: Request, from peer: SocketAddress?) async throws(Refusal) {
        guard let token = request.bearerToken else { throw .unauthorized }
        try await throttled(request, from: peer) { () async throws(Refusal) in
            guard isAdmin(token) else { throw .unauthorized }
        }
    }

    /// Runs `check` as one attempt of the request's address (``LoginThrottle/reserve(_:exempt:at:)``): refused
    /// at once while the address waits, given back when `check` passes.
    func throttled<T>(
        _ request: Request,
        from peer: SocketAddress?,
        _ check: () async throws(Refusal) -> T
    ) async throws(Refusal) -> T {
        let key = LoginThrottle.addressKey(clients.of(request, peer: peer))
        let wait = throttle.reserve([key], at: database.clock.now())
        if wait > 0 { throw Accounts.slowDown(wait) }
        let value = try await check()
        throttle.refund(key)
        return value
    }

    /// Whether `token` is the admin token.
    func isAdmin(_ token: String?) -> Bool {
        token.map { Secrets.equal(Secrets.hash($0), adminTokenHash) } ?? false
    }

    /// The manager and store of an unexpired session token.
    func manager(session token: String) async throws(Refusal) -> (username: String, store: StoreID) {
        let session: (username: String, store: StoreID)?
        do {
            session = try await database.session(token, at: database.clock.now())
        } catch {
            throw Refusal(.failed, "cannot read the session table")
        }
        guard let session else { throw .unauthorized }
        return session
    }

    /// The enrolled device making the request (its store, id and role), which must belong to `store` when one
    /// is given, and speak a sync protocol this server serves (426 when it is older, 400 when its header is not
    /// a protocol number) — checked after its credential, so only an enrolled kiosk learns the policy.
    public func requireDevice(
        _ request: Request,
        store: StoreID? = nil
    ) async throws(Refusal) -> KioskGrant {
        guard let token = request.bearerToken else { throw .unauthorized }
        let found: KioskGrant?
        do {
            found = try await database.device(credential: token)
        } catch {
            throw Refusal(.failed, "cannot read the device table")
        }
        guard let found else { throw .unauthorized }
        if let store, store != found.store { throw Refusal(.forbidden, "this device belongs to another store") }
        let said = request.headers[values: HTTPField.Name(SyncProtocol.header)!]
        guard said.count <= 1, let spoken = SyncProtocol.of(header: said.first) else {
            throw Refusal.invalid(
                "\(SyncProtocol.header) must be one protocol number, e.g. \(SyncProtocol.current)",
                field: SyncProtocol.header
            )
        }
        let now = database.clock.now()
        // Seen before the policy's check: the fleet view shows a refused kiosk as old, not as silent.
        contacts.seen(found.device, of: found.store, at: now, speaking: spoken)
        if spoken < oldestKioskProtocol { throw Refusal.upgradeKioskd(spoken: spoken, oldest: oldestKioskProtocol) }
        kiosks.confirmed(token, device: found.device, of: found.store, at: now)
        return found
    }

    /// The admin, or a manager of `store` (with an unexpired session): the manager's user name, or `admin`.
    @discardableResult
    func requireManager(
        _ request: Request,
        from peer: SocketAddress?,
        of store: StoreID
    ) async throws(Refusal) -> String {
        guard let token = request.bearerToken else { throw .unauthorized }
        let session = try await throttled(request, from: peer) {
            () async throws(Refusal) -> (username: String, store: StoreID)? in
            isAdmin(token) ? nil : try await manager(session: token)
        }
        if let session, session.store != store { throw Refusal(.forbidden, "you manage another store") }
        return session?.username ?? "admin"
    }

}

extension Refusal {
    /// To a kiosk older than the server serves: what it speaks, what the server serves, what to do.
    static func upgradeKioskd(spoken: Int, oldest: Int) -> Refusal {
        var refusal = Refusal(
            .upgradeRequired,
            "this kiosk speaks sync protocol \(spoken) and this clup-server serves \(oldest) and newer — update "
                + "kioskd on this box (apt install --only-upgrade clup-kiosk); its tickets wait in its outbox"
        )
        refusal.reason = "upgrade_kioskd"
        return refusal
    }
}
