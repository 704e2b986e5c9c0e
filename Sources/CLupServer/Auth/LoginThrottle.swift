import Crypto
import Foundation
import KioskCore
import Synchronization

/// Slows down password guessing without handing a guesser the power to lock a manager out.
///
/// Failures are counted per client address and per user name, separately. An address past 10 failures waits
/// twice as long after each further one (1 s, 2 s … 5 min), and while it waits its attempts are refused
/// before any password is hashed (a blocked address costs the server nothing). A user name past 3 failures
/// waits the same way, from every address, except for devices that user logged in from before
/// (``KnownDevices``): the manager's own phone still logs in while someone guesses. A success clears the
/// user's count. An attempt is counted as a failure before its password is hashed (``reserve(_:exempt:at:)``)
/// and given back when it succeeds, so that attempts sent at once cannot all pass the check before the first
/// failure is recorded. The admin token and managers' bearer tokens are throttled by address the same way.
/// Records are forgotten 15 minutes after their last failure once their
/// wait is over; past `maxKeys` the oldest idle ones go first, never all at once. In memory: a restart
/// forgets, which costs a guesser little.
final class LoginThrottle: Sendable {
    private struct Record {
        var failures = 0
        var blockedUntil = Timestamp(milliseconds: 0)
        var lastFailure = Timestamp(milliseconds: 0)
    }

    private let records = Mutex<[String: Record]>([:])
    private let maxKeys: Int
    static let forgetAfter: Duration = .seconds(15 * 60)

    init(maxKeys: Int = 100_000) {
        self.maxKeys = maxKeys
    }

    static func addressKey(_ address: String) -> String { "ip:" + address }
    /// A user name's record, by a digest of the name (a fixed 37 bytes, whatever was sent).
    static func userKey(_ username: String) -> String {
        "user:"
            + SHA256.hash(data: Array(username.lowercased().utf8)).prefix(16).map { String(format: "%02x", $0) }
            .joined()
    }

    /// Failures allowed before waiting starts, by key kind.
    static func free(_ key: String) -> Int { key.hasPrefix("ip:") ? 10 : 3 }

    /// Takes an attempt for `keys` at `now`: 0 when it may go ahead — counted as a failure of each key until
    /// ``succeeded(_:)`` or ``refund(_:)`` — else the seconds the longest-waiting key must wait (nothing counted).
    /// Keys in `exempt` count the attempt but do not stop it.
    func reserve(_ keys: [String], exempt: Set<String> = [], at now: Timestamp) -> Int {
        records.withLock { records in
            let wait =
                keys.filter { !exempt.contains($0) }.map { key in
                    records[key].map { max(0, Int(($0.blockedUntil - now).wholeMilliseconds + 999) / 1000) } ?? 0
                }.max() ?? 0
            guard wait == 0 else { return wait }
            Self.count(keys, in: &records, at: now, maxKeys: maxKeys)
            return 0
        }
    }

    /// Gives back an attempt ``reserve(_:exempt:at:)`` counted for `key` (it succeeded).
    func refund(_ key: String) {
        records.withLock { records in
            guard var record = records[key] else { return }
            record.failures -= 1
            if record.failures <= Self.free(key) { record.blockedUntil = Timestamp(milliseconds: 0) }
            records[key] = record.failures > 0 ? record : nil
        }
    }

    private static func count(_ keys: [String], in records: inout [String: Record], at now: Timestamp, maxKeys: Int) {
        if records.count >= maxKeys { forgetIdle(&records, at: now, keep: maxKeys * 3 / 4) }
        for key in keys {
            var record = records[key] ?? Record()
            record.failures += 1
            record.lastFailure = now
            let free = Self.free(key)
            if record.failures > free {
                let seconds = min(1 << min(record.failures - free - 1, 20), 300)
                record.blockedUntil = now + .seconds(seconds)
            }
            records[key] = record
        }
    }

    /// The records kept, and the bytes of their keys (what guessing costs the server's memory).
    var footprint: (records: Int, keyBytes: Int) {
        records.withLock { ($0.count, $0.keys.reduce(0) { $0 + $1.utf8.count }) }
    }

    func succeeded(_ key: String) {
        _ = records.withLock { $0.removeValue(forKey: key) }
    }

    /// Drops records idle for `forgetAfter` whose wait is over; if that is not enough, the longest idle
    /// ones until `keep` remain.
    private static func forgetIdle(_ records: inout [String: Record], at now: Timestamp, keep: Int) {
        records = records.filter { $0.value.blockedUntil > now || now - $0.value.lastFailure < forgetAfter }
        guard records.count > keep else { return }
        let oldest = records.sorted { $0.value.lastFailure < $1.value.lastFailure }.prefix(records.count - keep)
        for (key, _) in oldest { records[key] = nil }
    }
}
