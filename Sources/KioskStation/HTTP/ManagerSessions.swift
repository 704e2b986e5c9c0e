import Foundation
import NIOPosix
import ServiceSupport
import Synchronization

/// Who may press the manager page's buttons from another device: a manager who logged in with the password in
/// `[http] manager_password` (a scrypt hash, made by `kioskd manager-password`). Requests from the box itself
/// (its own screen, a GPIO button's script, curl on the box) need no login.
///
/// Promises:
/// - A login opens a session of ``lifetime`` (a shift) named by a random token the browser keeps in an
///   HttpOnly, SameSite=Strict cookie; only the token's SHA-256 is kept, at most ``maxSessions`` (the oldest
///   goes first). Sessions live in memory: a restart of kioskd logs everyone out.
/// - Guessing is slow and bounded: one password is checked at a time, on NIO's blocking pool (scrypt: 16 MB and
///   tens of milliseconds), and after ``maxFailures`` wrong ones within a minute every login is refused until
///   the oldest of them is a minute old — a box has one manager password, so the bound is the box's, not an
///   address's (an address is easy to change on a shop's network).
/// - Time is the monotonic clock's (`now`), so a wall clock that steps from 1970 to today neither ends nor
///   stretches a session.
final class ManagerSessions: Sendable {
    enum Login: Equatable {
        case opened(token: String)
        case wrong
        case tooMany(retryAfterSeconds: Int)
        case noPassword
    }

    static let cookie = "kioskd_manager"
    static let maxSessions = 16
    static let maxFailures = 5
    static let lifetime = Duration.seconds(12 * 3600)

    let password: PasswordHash?
    private let now: @Sendable () -> Duration
    private let state = Mutex(State())

    private struct State {
        var sessions: [Data: Duration] = [:]
        var failures: [Duration] = []
        var checking = false
    }

    init(password: PasswordHash?, now: @escaping @Sendable () -> Duration = ManagerSessions.monotonic) {
        self.password = password
        self.now = now
    }

    static let monotonic: @Sendable () -> Duration = {
        let origin = ContinuousClock.now
        return { ContinuousClock.now - origin }
    }()

    /// Checks `candidate` against the password and opens a session when it is the one.
    func login(_ candidate: String) async -> Login {
        guard let password else { return .noPassword }
        let refusal: Login? = state.withLock { state in
            let now = now()
            state.failures.removeAll { now - $0 >= .seconds(60) }
            if state.failures.count >= Self.maxFailures, let oldest = state.failures.first {
                return .tooMany(retryAfterSeconds: max(1, Int((oldest + .seconds(60) - now).components.seconds)))
            }
            if state.checking { return .tooMany(retryAfterSeconds: 1) }
            state.checking = true
            return nil
        }
        if let refusal { return refusal }
        let matches = (try? await NIOThreadPool.singleton.runIfActive { password.matches(candidate) }) ?? false
        return state.withLock { state in
            state.checking = false
            let now = now()
            guard matches else {
                state.failures.append(now)
                return .wrong
            }
            state.sessions = state.sessions.filter { $0.value > now }
            while state.sessions.count >= Self.maxSessions,
                let oldest = state.sessions.min(by: { $0.value < $1.value })
            {
                state.sessions[oldest.key] = nil
            }
            let token = Secrets.token()
            state.sessions[Secrets.hash(token)] = now + Self.lifetime
            return .opened(token: token)
        }
    }

    /// Whether `token` names a session that has not ended.
    func isOpen(_ token: String?) -> Bool {
        guard let token, token.utf8.count <= 64 else { return false }
        let key = Secrets.hash(token)
        return state.withLock { state in
            guard let ends = state.sessions[key] else { return false }
            return ends > now()
        }
    }

    /// Ends the session `token` names (a logout).
    func close(_ token: String?) {
        guard let token, token.utf8.count <= 64 else { return }
        let key = Secrets.hash(token)
        state.withLock { _ = $0.sessions.removeValue(forKey: key) }
    }
}
