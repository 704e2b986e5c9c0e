import Foundation
import KioskCore
import ServiceSupport

/// Store manager login (R10): a password checked against its scrypt hash, a session token that expires, and
/// the end of a session (a manager's, or the system manager's console session). Wrong credentials are refused
/// without saying which part was wrong; repeated failures are slowed down (``LoginThrottle``). The API's login
/// and the console's both log in here.
struct Accounts: Sendable {
    let database: any ServerStorage
    let throttle: LoginThrottle
    let devices: KnownDevices
    let sessionLifetime: Duration
    let passwords: PasswordChecks

    struct Login: Decodable, Sendable {
        var username: String
        var password: String
        /// The token of a device this user logged in from before (``KnownDevices``).
        var device: String?
    }

    struct Session: Encodable, Sendable {
        var token: String
        var store: StoreID
        /// Milliseconds since 1970.
        var expiresAt: Int64
        /// This device's token: keep it and send it with the next logins.
        var device: String
    }

    /// What an unknown user's password is checked against, so that the check takes as long as a real one.
    static let dummy = try! PasswordHash(password: "no such manager — this hash is never matched")

    static func slowDown(_ seconds: Int) -> Refusal {
        Refusal(.tooMany, "too many failed logins — try again in \(seconds) s", retryAfter: seconds)
    }

    /// What a registration allows (``StoreOffice``): longer cannot be anyone's.
    static let username = TextLimit.atMost(64)
    static let password = TextLimit.atMost(1024)

    var clock: WallClock { database.clock }

    /// Checks a login (throttled by the client's address and by user name) and opens a session.
    func login(_ login: Login, address client: String) async throws -> Session {
        let now = database.clock.now()
        let address = LoginThrottle.addressKey(client)
        // Sizes first, in bytes and scalars, before anything is kept or hashed: a 16 KB "user name" costs a
        // failure of its address and nothing else.
        guard Self.username.allows(login.username), Self.password.allows(login.password) else {
            let wait = throttle.reserve([address], at: now)
            if wait > 0 { throw Self.slowDown(wait) }
            throw Refusal(.unauthorized, "wrong user name or password")
        }
        let user = LoginThrottle.userKey(login.username)
        // A blocked address is refused before any hashing: its guesses cost the server nothing. A user name
        // slowed down by failures takes attempts only from devices it logged in from before; the others wait.
        // The attempt counts as a failure from here (given back if it succeeds): attempts sent at once cannot
        // all reach the hashing before the first one's failure is recorded.
        let knownDevice = devices.vouches(login.device, for: login.username)
        let wait = throttle.reserve([address, user], exempt: knownDevice ? [user] : [], at: now)
        if wait > 0 { throw Self.slowDown(wait) }
        // An unknown user name costs the same hashing as a known one: the answer's time tells nothing.
        let matches: Bool
        let account: (store: StoreID, password: PasswordHash)?
        do {
            account = try await database.manager(login.username)
            matches = try await passwords.matches(login.password, account?.password ?? Self.dummy) && account != nil
        } catch {
            // Not checked (the database failed, or the server is busy hashing): not a failure.
            throttle.refund(address)
            throttle.refund(user)
            throw error
        }
        guard let account, matches else { throw Refusal(.unauthorized, "wrong user name or password") }
        throttle.succeeded(user)
        throttle.refund(address)
        let expires = now + sessionLifetime
        let token = try await database.openSession(username: login.username, expires: expires)
        return Session(
            token: token,
            store: account.store,
            expiresAt: expires.milliseconds,
            device: knownDevice ? login.device! : devices.mint(for: login.username)
        )
    }

    /// Ends a manager's session: its token stops working at once. An unknown or ended session is refused.
    func logout(_ token: String) async throws {
        guard try await database.closeSession(token) else { throw Refusal.unauthorized }
    }

    /// Ends the system manager's signed console session `value` until it would have expired.
    func endAdminSession(_ value: String, expires: Timestamp) async throws {
        try await database.endAdminSession(value, expires: expires)
    }

    /// Whether the system manager's console session `value` was ended by a logout.
    func adminSessionEnded(_ value: String) async throws -> Bool {
        try await database.adminSessionEnded(value)
    }
}
