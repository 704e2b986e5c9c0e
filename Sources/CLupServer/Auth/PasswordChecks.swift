import KioskCore
import NIOPosix
import ServiceSupport
import Synchronization

/// Where passwords are hashed: scrypt costs tens of milliseconds and 16 MB a guess, so it runs on NIO's
/// blocking thread pool (one thread a core), never on an event loop — a burst of logins from many addresses
/// would otherwise hold up every other request on the loops that took them. At most ``maxWaiting`` hashes wait
/// for a thread; beyond, a login is told to try again (503 with `Retry-After`) rather than queued for ever.
final class PasswordChecks: Sendable {
    private let pool: NIOThreadPool
    private let waiting = Atomic<Int>(0)
    let maxWaiting: Int

    init(pool: NIOThreadPool = .singleton, maxWaiting: Int = 64) {
        self.pool = pool
        self.maxWaiting = maxWaiting
    }

    /// Whether `password` is the one `hash` was made from.
    func matches(_ password: String, _ hash: PasswordHash) async throws(Refusal) -> Bool {
        try await run { hash.matches(password) }
    }

    /// A new hash of `password`.
    func hash(_ password: String) async throws(Refusal) -> PasswordHash {
        guard let hash = try await run({ try? PasswordHash(password: password) }) else { throw Refusal.failed }
        return hash
    }

    private func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws(Refusal) -> T {
        guard waiting.add(1, ordering: .relaxed).newValue <= maxWaiting else {
            waiting.subtract(1, ordering: .relaxed)
            throw Refusal(.unavailable, "busy checking passwords — try again in a few seconds", retryAfter: 2)
        }
        defer { waiting.subtract(1, ordering: .relaxed) }
        do {
            return try await pool.runIfActive { work() }
        } catch {
            throw Refusal.failed
        }
    }
}
