import Foundation
import Hummingbird
import KioskCore
import ServiceSupport

/// Store manager login (R10): a password checked against its scrypt hash, a session token that expires.
/// Wrong credentials are a 401 that does not say which part was wrong; repeated failures are slowed down.
struct AccountRoutes {
    let database: any ServerStorage
    let throttle: LoginThrottle
    let devices: KnownDevices
    let sessionLifetime: Duration
    let clients: ClientAddress
    let passwords: PasswordChecks

    struct Login: Decodable {
        var username: String
        var password: String
        /// The token of a device this user logged in from before (``KnownDevices``).
        var device: String?
    }

    struct Session: ResponseEncodable {
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

    func register(on router: some RouterMethods<ServerContext>) {
        router.post("v1/login") { request, context -> Session in
            let login = try await request.decode(Login.self, limit: 16 << 10)
            return try await self.login(login, address: clients.of(request, peer: context.remoteAddress))
        }
        router.post("v1/logout") { request, _ -> Response in
            guard let token = request.bearerToken else { throw Refusal.unauthorized }
            try await logout(token)
            return Response(status: .noContent)
        }
    }

    /// What a registration allows (``StoreOffice``): longer cannot be anyone's.
    static let username = TextLimit.atMost(64)
    static let password = TextLimit.atMost(1024)

    /// Checks a login (throttled by address and by user name) and opens a session; the API and the
    /// console's login page both log in here.
    func login(_ login: Login, address client: String) async throws(Refusal) -> Session {
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
        let account = try await StoreOffice.storingAsync { try await database.manager(login.username) }
        let matches: Bool
        do {
            matches = try await passwords.matches(login.password, account?.password ?? Self.dummy) && account != nil
        } catch {
            // Not checked (the server is busy hashing): not a failure.
            throttle.refund(address)
            throttle.refund(user)
            throw error
        }
        guard let account, matches else { throw Refusal(.unauthorized, "wrong user name or password") }
        throttle.succeeded(user)
        throttle.refund(address)
        let expires = now + sessionLifetime
        let token = try await StoreOffice.storingAsync {
            try await database.openSession(username: login.username, expires: expires)
        }
        return Session(
            token: token,
            store: account.store,
            expiresAt: expires.milliseconds,
            device: knownDevice ? login.device! : devices.mint(for: login.username)
        )
    }

    /// Ends a session: its token stops working at once. An unknown or ended session is a 401.
    func logout(_ token: String) async throws(Refusal) {
        guard try await StoreOffice.storingAsync({ try await database.closeSession(token) }) else {
            throw Refusal.unauthorized
        }
    }
}
