import Crypto
import Foundation

/// The devices a manager has logged in from (a "device cookie"): a token handed out with every successful
/// login and sent back with the next ones (`device` in `POST /v1/login`). While someone else's guesses slow a
/// user name down, a login from a device that user logged in from before is still let through to the password
/// check; every other attempt on that name waits, before any hashing. So a guesser spread over a thousand
/// addresses gets three free guesses per name, not three per address, and the manager is not locked out.
///
/// 16 random bytes and a MAC of them with the user name under the server's key: nothing stored, bound to one
/// user name, useless without the password.
struct KnownDevices: Sendable {
    private let key: SymmetricKey

    init(key: SymmetricKey) {
        self.key = key
    }

    /// A new token for a device `username` just logged in from.
    func mint(for username: String) -> String { MACToken.mint(key: key, binding: Self.binding(username)) }

    /// Whether `token` is one this server gave to a device that logged in as `username`.
    func vouches(_ token: String?, for username: String) -> Bool {
        token.map { MACToken.isValid($0, key: key, binding: Self.binding(username)) } ?? false
    }

    private static func binding(_ username: String) -> Data { Data(username.lowercased().utf8) }
}
