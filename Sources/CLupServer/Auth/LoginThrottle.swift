import KioskCore
import Synchronization

/// Slows down password guessing: after 3 failures for a user name (10 from one address: a store's managers
/// may share one), each further attempt must wait twice as long as the previous (1 s, 2 s, 4 s … up to
/// 5 min) — answered 429 with Retry-After meanwhile. A success clears the user's count. In memory: a restart forgets, which costs a guesser little.
final class LoginThrottle: Sendable {
    private struct Record {
        var failures = 0
        var blockedUntil = Timestamp(milliseconds: 0)
    }

    private let records = Mutex<[String: Record]>([:])
    /// Failures allowed before waiting starts, by key kind (`user:` and `ip:` prefixes).
    static func free(_ key: String) -> Int { key.hasPrefix("ip:") ? 10 : 3 }

    /// Seconds to wait before `keys` may try again; 0 when they may now.
    func wait(_ keys: [String], at now: Timestamp) -> Int {
        records.withLock { records in
            keys.compactMap { records[$0] }.map { max(0, Int((($0.blockedUntil - now).components.seconds))) }.max() ?? 0
        }
    }

    func failed(_ keys: [String], at now: Timestamp) {
        records.withLock { records in
            for key in keys {
                var record = records[key] ?? Record()
                record.failures += 1
                let free = Self.free(key)
                if record.failures > free {
                    let seconds = min(1 << min(record.failures - free - 1, 20), 300)
                    record.blockedUntil = now + .seconds(seconds)
                }
                records[key] = record
            }
            if records.count > 100_000 { records.removeAll() }  // never grow without bound
        }
    }

    func succeeded(_ key: String) {
        _ = records.withLock { $0.removeValue(forKey: key) }
    }
}
