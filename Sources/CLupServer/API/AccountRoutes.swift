import Foundation
import Hummingbird
import KioskCore

/// Store manager login (R10): a password checked against its scrypt hash, a session token that expires.
/// Wrong credentials are a 401 that does not say which part was wrong; repeated failures are slowed down.
struct AccountRoutes {
    let database: ServerDatabase
    let throttle: LoginThrottle
    let sessionLifetime: Duration
    let clients: ClientAddress

    struct Login: Decodable {
        var username: String
        var password: String
    }

    struct Session: ResponseEncodable {
        var token: String
        var store: StoreID
        /// Milliseconds since 1970.
        var expiresAt: Int64
    }

    /// What an unknown user's password is checked against, so that the check takes as long as a real one.
    static let dummy = try! PasswordHash(password: "no such manager — this hash is never matched")

    static func slowDown(_ seconds: Int) -> APIError {
        APIError(.tooManyRequests, "too many failed logins — try again in \(seconds) s", retryAfter: seconds)
    }

    func register(on router: some RouterMethods<ServerContext>) {
        router.post("v1/login") { request, context -> Session in
            let login = try await request.decode(Login.self, limit: 16 << 10)
            let now = database.clock.now()
            let address = LoginThrottle.addressKey(clients.of(request, peer: context.remoteAddress))
            let user = LoginThrottle.userKey(login.username)
            // A blocked address is refused before any hashing: its guesses cost the server nothing.
            let addressWait = throttle.wait(address, at: now)
            if addressWait > 0 { throw Self.slowDown(addressWait) }
            guard login.username.count <= 64, login.password.count <= 1024 else {
                throttle.failed([address], at: now)
                throw APIError(.unauthorized, "wrong user name or password")
            }
            // An unknown user name costs the same hashing as a known one: the answer's time tells nothing.
            let account = try await database.manager(login.username)
            let matches = (account?.password ?? Self.dummy).matches(login.password) && account != nil
            let userWait = throttle.wait(user, at: now)
            guard let account, matches, userWait == 0 || !throttle.hasFailures(address) else {
                // The failure that starts a wait is answered as any other; the attempts during it, 429.
                if !matches { throttle.failed([user, address], at: now) }
                if userWait > 0 { throw Self.slowDown(userWait) }
                throw APIError(.unauthorized, "wrong user name or password")
            }
            throttle.succeeded(user)
            let expires = now + sessionLifetime
            let token = try await database.openSession(username: login.username, expires: expires)
            return Session(token: token, store: account.store, expiresAt: expires.milliseconds)
        }
    }
}
