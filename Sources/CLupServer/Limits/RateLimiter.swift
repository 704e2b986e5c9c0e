import KioskCore
import Synchronization

/// Request rate limits by key (a client address, a store): `burst` requests at once, then one every
/// `interval` — the generic cell rate algorithm, which keeps one time per key (when the key's allowance is
/// whole again) instead of a counter and a timer.
///
/// Memory is bounded: keys whose allowance is whole again are forgotten, and past `maxKeys` (an attack from
/// very many addresses) new keys share one overflow key, so together they get what one key gets.
public final class RateLimiter: Sendable {
    public struct Rule: Sendable, Equatable, CustomStringConvertible {
        public var burst: Int
        public var interval: Duration

        public init(burst: Int, interval: Duration) {
            self.burst = max(burst, 1)
            self.interval = max(interval, .milliseconds(1))
        }

        /// `BURST/SECONDS`, e.g. `10/30` (10 at once, then one every 30 s).
        public init?(_ text: String) {
            let parts = text.split(separator: "/")
            guard parts.count == 2, let burst = Int(parts[0]), (1...1_000_000).contains(burst),
                let seconds = Double(parts[1]), seconds > 0, seconds <= 86_400
            else { return nil }
            self.init(burst: burst, interval: .milliseconds(Int64(seconds * 1000)))
        }

        public var description: String {
            let ms = interval.wholeMilliseconds
            return "\(burst)/" + (ms % 1000 == 0 ? "\(ms / 1000)" : "\(Double(ms) / 1000)")
        }
    }

    let rule: Rule
    private let maxKeys: Int
    /// For each key, the time its allowance is whole again.
    private let full = Mutex<[String: Timestamp]>([:])
    static let overflowKey = "\u{0}overflow"

    init(_ rule: Rule, maxKeys: Int = 100_000) {
        self.rule = rule
        self.maxKeys = maxKeys
    }

    /// Takes one request of `key`'s allowance: nil when allowed, else the seconds until it would be.
    func take(_ key: String, at now: Timestamp) -> Int? {
        full.withLock { full in
            let turn = nextTurn(key, at: now, in: &full)
            guard turn.wait == .zero else { return max(1, Int((turn.wait.wholeMilliseconds + 999) / 1000)) }
            full[turn.key] = turn.whole
            return nil
        }
    }

    /// Books `key`'s next request instead of refusing it: how long it must wait for its turn (zero within the
    /// burst), or nil — and nothing booked — when that would be longer than `limit`.
    func reserve(_ key: String, at now: Timestamp, waitingAtMost limit: Duration) -> Duration? {
        full.withLock { full in
            let turn = nextTurn(key, at: now, in: &full)
            guard turn.wait <= limit else { return nil }
            full[turn.key] = turn.whole
            return turn.wait
        }
    }

    /// `key`'s next request, not yet booked: the key it counts under (the overflow key once `maxKeys` are
    /// held), when its allowance would be whole again if it were booked, and how long it would have to wait.
    private func nextTurn(
        _ key: String,
        at now: Timestamp,
        in full: inout [String: Timestamp]
    ) -> (key: String, whole: Timestamp, wait: Duration) {
        var key = key
        if full[key] == nil && full.count >= maxKeys {
            full = full.filter { $0.value > now }
            if full.count >= maxKeys { key = Self.overflowKey }
        }
        let whole = max(full[key] ?? now, now) + rule.interval
        return (key, whole, max(.zero, (whole - now) - rule.interval * rule.burst))
    }

    /// Gives back one request taken by `take` (a later check refused the request, so it did not count).
    func giveBack(_ key: String) {
        full.withLock { full in
            if let whole = full[key] { full[key] = whole - rule.interval }
        }
    }

    var keyCount: Int { full.withLock { $0.count } }
}
