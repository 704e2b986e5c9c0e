import Crypto
import Foundation
import HTTPTypes
import KioskCore
import ServiceSupport
import Synchronization

/// What a virtual ticket or a booking costs the client that asks: a little hashing (a proof of work, as
/// hashcash), which the shopper page's script does in the background (at the calm difficulty, a few
/// milliseconds in a browser) and a flood of requests cannot afford one by one.
///
/// The client asks `GET /v1/stores/{store}/work` for a challenge, finds a nonce such that the SHA-256 of
/// `<challenge>.<nonce>` (ASCII) begins with `bits` zero bits, and sends `Clup-Work: <challenge>.<nonce>`
/// with its `POST …/tickets` or `…/bookings`. The challenge is stateless (the server's MAC over the store,
/// its expiry and its bits); a proof counts once (the server remembers the spent ones until they expire).
///
/// Adaptive: a store under pressure asks for more. The pressure is the number of paid requests (valid
/// proofs) at the store in about the last minute; each doubling beyond `calmPerMinute` adds a bit (doubles
/// the cost of the next), up to `maxBits`, which a browser on a phone still solves in about a second.
/// Unpaid requests do not raise it (a flood cannot make shoppers' work harder without doing the work).
public struct WorkRule: Sendable, Equatable {
    /// Zero bits at a calm store (2^14 hashes: ~10 ms in a browser).
    public var baseBits = 14
    /// The most ever asked (2^20 hashes: ~0.6 s on average in a browser at 1.7 M hashes/s).
    public var maxBits = 20
    /// Paid requests a minute a store takes at the base difficulty.
    public var calmPerMinute = 20.0
    /// How long a challenge may be used.
    public var lifetime = Duration.seconds(120)

    public init(baseBits: Int = 14, maxBits: Int = 20) {
        self.baseBits = baseBits
        self.maxBits = max(maxBits, baseBits)
    }

    /// Bits asked of a store whose pressure is `paid` requests in the last minute.
    func bits(pressure paid: Double) -> Int {
        guard paid > calmPerMinute else { return baseBits }
        return min(maxBits, baseBits + Int(log2(paid / calmPerMinute).rounded(.up)))
    }
}

final class TicketWork: Sendable {
    static let header = "Clup-Work"
    static let field = HTTPField.Name(header)!

    /// A challenge as the API answers it.
    struct Challenge: Codable, Sendable {
        var challenge: String
        var bits: Int
        /// When it can no longer be used (ms since 1970).
        var expiresAt: Int64
    }

    private struct State {
        /// Per store: paid requests, decayed to about the last minute, and when last counted.
        var pressure: [StoreID: (count: Double, at: Timestamp)] = [:]
        /// Per store: proofs spent, by challenge tag, until their challenge expires.
        var spent: [StoreID: [Data: Timestamp]] = [:]
        /// Spent proofs remembered, all stores together.
        var spentCount = 0
        /// When the first remembered proof's challenge expires (seconds since 1970): before then, forgetting
        /// expired proofs would find none (a full store is refused without looking through its proofs again).
        var firstExpiry = Int64.max
    }

    let rule: WorkRule
    private let key: SymmetricKey
    private let state = Mutex(State())
    /// Spent proofs one store remembers at most: each cost its client at least 2^baseBits hashes, and a store
    /// where a few tickets a minute are taken spends a few hundred in a challenge's lifetime. A flood that fills
    /// it (about a consumer GPU's worth of hashing at the store's raised price) refuses that store's virtual
    /// tickets, with the paper ticket to take, until its proofs expire (2 minutes); never another store's.
    let maxSpentPerStore: Int
    /// All stores together: the memory it may take (about 100 bytes a proof).
    let maxSpent: Int

    init(rule: WorkRule, key: SymmetricKey, maxSpentPerStore: Int = 20_000, maxSpent: Int = 1_000_000) {
        self.rule = rule
        self.key = key
        self.maxSpentPerStore = maxSpentPerStore
        self.maxSpent = maxSpent
    }

    /// A new challenge for `store`, at the store's present difficulty.
    func challenge(store: StoreID, at now: Timestamp) -> Challenge {
        let bits = rule.bits(pressure: pressure(store, at: now))
        let expires = now + rule.lifetime
        let salt = SymmetricKey(size: SymmetricKeySize(bitCount: 64)).withUnsafeBytes { Data($0) }
        let body = "\(expires.seconds).\(bits).\(HolderTokens.base64url(salt))"
        let text = body + "." + HolderTokens.base64url(tag(body, store: store))
        return Challenge(challenge: text, bits: bits, expiresAt: expires.seconds * 1000)
    }

    /// Spends `proof` (the `Clup-Work` header) for a request at `store`, or refuses it: 428 with reason
    /// `work`, saying what to do.
    func spend(_ proof: String?, store: StoreID, at now: Timestamp) throws(Refusal) {
        guard let proof else { throw Self.refusal("send a proof of work: ask GET /v1/stores/{store}/work") }
        guard proof.utf8.count <= 64 else { throw Self.refusal("the proof of work is too long") }
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 5, let expires = Int64(parts[0]), let bits = Int(parts[1]),
            let tag = HolderTokens.data(base64url: parts[3]),
            (1...10).contains(parts[4].count), parts[4].allSatisfy(\.isASCII), parts[4].allSatisfy(\.isNumber)
        else { throw Self.refusal("the proof of work is malformed: send `<challenge>.<nonce>`") }
        let body = parts[0...2].joined(separator: ".")
        guard Secrets.equal(tag, self.tag(body, store: store)) else {
            throw Self.refusal("the challenge is not this server's for this store: ask for a new one")
        }
        guard now.seconds < expires else { throw Self.refusal("the challenge has expired: ask for a new one") }
        guard WorkProof.zeroBits(of: Data(proof.utf8)) >= bits else {
            throw Self.refusal(
                "the nonce does not solve the challenge: find one whose hash begins with \(bits) zero bits"
            )
        }
        try state.withLock { state throws(Refusal) in
            // A challenge handed out before the store's pressure rose still counts one step below.
            let asked = rule.bits(pressure: Self.decayed(state.pressure[store], at: now))
            guard bits >= asked - 1 else {
                throw Self.refusal("the store is busy and asks for more work now: ask for a new challenge")
            }
            guard state.spent[store]?[tag] == nil else { throw Self.refusal("this proof of work was already used") }
            if state.spent[store, default: [:]].count >= maxSpentPerStore || state.spentCount >= maxSpent,
                now.seconds >= state.firstExpiry
            {
                Self.forgetExpired(&state, at: now)
            }
            guard state.spent[store, default: [:]].count < maxSpentPerStore, state.spentCount < maxSpent else {
                throw Refusal(
                    .unavailable,
                    "too many tickets asked for at this store right now — take a paper ticket at the entrance, or "
                        + "try again in two minutes",
                    retryAfter: Int(rule.lifetime.components.seconds)
                )
            }
            state.spent[store, default: [:]][tag] = Timestamp(seconds: expires)
            state.spentCount += 1
            state.firstExpiry = min(state.firstExpiry, expires)
            state.pressure[store] = (Self.decayed(state.pressure[store], at: now) + 1, now)
        }
    }

    /// Drops the proofs whose challenges have expired (they cannot be spent again anyway), in every store.
    private static func forgetExpired(_ state: inout State, at now: Timestamp) {
        var count = 0
        var first = Int64.max
        for (store, proofs) in state.spent {
            let live = proofs.filter { $0.value.seconds > now.seconds }
            state.spent[store] = live.isEmpty ? nil : live
            count += live.count
            first = live.values.reduce(first) { min($0, $1.seconds) }
        }
        state.spentCount = count
        state.firstExpiry = first
    }

    private func pressure(_ store: StoreID, at now: Timestamp) -> Double {
        state.withLock { Self.decayed($0.pressure[store], at: now) }
    }

    /// A count that loses 1/e of itself every minute.
    private static func decayed(_ last: (count: Double, at: Timestamp)?, at now: Timestamp) -> Double {
        guard let last else { return 0 }
        let minutes = Double(max(0, (now - last.at).wholeMilliseconds)) / 60_000
        return last.count * exp(-minutes)
    }

    private func tag(_ body: String, store: StoreID) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data((store.uuidString + "." + body).utf8), using: key)).prefix(12)
    }

    private static func refusal(_ what: String) -> Refusal {
        var error = Refusal(.workRequired, what, field: header)
        error.reason = "work"
        return error
    }
}

/// The proof of work's arithmetic, for clients written in Swift (the benchmarks, the tests); the shopper
/// page's script does the same in JavaScript.
public enum WorkProof {
    /// The zero bits the SHA-256 of `data` begins with.
    static func zeroBits(of data: Data) -> Int {
        var bits = 0
        for byte in SHA256.hash(data: data) {
            guard byte == 0 else { return bits + byte.leadingZeroBitCount }
            bits += 8
        }
        return bits
    }

    /// The `Clup-Work` value for a challenge: `<challenge>.<nonce>` whose SHA-256 begins with `bits` zero bits.
    public static func solve(challenge: String, bits: Int) -> String {
        var nonce = 0
        while zeroBits(of: Data("\(challenge).\(nonce)".utf8)) < bits { nonce += 1 }
        return "\(challenge).\(nonce)"
    }
}
