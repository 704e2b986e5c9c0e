import Foundation
import Hummingbird
import KioskCore

/// Store manager login (R10): a password checked against its scrypt hash, a session token that expires.
/// Wrong credentials are a 401 that does not say which part was wrong; repeated failures are slowed down.
struct AccountRoutes {
    let database: ServerDatabase
    let throttle: LoginThrottle
    let sessionLifetime: Duration

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

    func register(on router: some RouterMethods<ServerContext>) {
        router.post("v1/login") { request, context -> Session in
            let login = try await request.decode(Login.self, limit: 16 << 10)
            let now = database.clock.now()
            let address = context.remoteAddress?.ipAddress ?? "?"
            let keys = ["user:" + login.username.lowercased(), "ip:" + address]
            let wait = throttle.wait(keys, at: now)
            if wait > 0 {
                throw APIError(.tooManyRequests, "too many failed logins — try again in \(wait) s", retryAfter: wait)
            }
            guard let account = try await database.manager(login.username),
                account.password.matches(login.password)
            else {
                throttle.failed(keys, at: now)
                throw APIError(.unauthorized, "wrong user name or password")
            }
            throttle.succeeded(keys[0])
            let expires = now + sessionLifetime
            let token = try await database.openSession(username: login.username, expires: expires)
            return Session(token: token, store: account.store, expiresAt: expires.milliseconds)
        }
    }
}
