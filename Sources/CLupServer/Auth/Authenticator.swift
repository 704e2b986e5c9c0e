import Crypto
import Foundation
import Hummingbird
import KioskCore

/// Who may call what: the system manager (the admin token from the configuration), store managers (a
/// session token from `POST /v1/login`), and kiosks (their enrollment credential, which ties them to one
/// store and one device id). Wrong or missing credentials are
/// a 401 that does not say which part was wrong.
public struct Authenticator: Sendable {
    let adminTokenHash: Data
    let database: any ServerStorage
    /// When each kiosk last called (every request it authenticates counts).
    let contacts = DeviceContacts()

    public init(adminToken: String, database: any ServerStorage) {
        self.adminTokenHash = Secrets.hash(adminToken)
        self.database = database
    }

    public func requireAdmin(_ request: Request) throws(APIError) {
        guard isAdmin(request.bearerToken) else { throw .unauthorized }
    }

    /// Whether `token` is the admin token.
    func isAdmin(_ token: String?) -> Bool {
        token.map { Secrets.equal(Secrets.hash($0), adminTokenHash) } ?? false
    }

    /// The manager and store of an unexpired session token.
    func manager(session token: String) async throws(APIError) -> (username: String, store: StoreID) {
        let session: (username: String, store: StoreID)?
        do {
            session = try await database.session(token, at: database.clock.now())
        } catch {
            throw APIError(.internalServerError, "cannot read the session table")
        }
        guard let session else { throw .unauthorized }
        return session
    }

    /// The enrolled device making the request, which must belong to `store` when one is given.
    public func requireDevice(
        _ request: Request,
        store: StoreID? = nil
    ) async throws(APIError) -> (store: StoreID, device: DeviceID) {
        guard let token = request.bearerToken else { throw .unauthorized }
        let found: (store: StoreID, device: DeviceID)?
        do {
            found = try await database.device(credential: token)
        } catch {
            throw APIError(.internalServerError, "cannot read the device table")
        }
        guard let found else { throw .unauthorized }
        if let store, store != found.store { throw APIError(.forbidden, "this device belongs to another store") }
        contacts.seen(found.device, of: found.store, at: database.clock.now())
        return found
    }

    /// The admin, or a manager of `store` (with an unexpired session).
    public func requireManager(_ request: Request, of store: StoreID) async throws(APIError) {
        guard let token = request.bearerToken else { throw .unauthorized }
        if isAdmin(token) { return }
        guard try await manager(session: token).store == store else {
            throw APIError(.forbidden, "you manage another store")
        }
    }

}
