import Hummingbird
import KioskCore
import Synchronization

/// What anonymous clients may create, and how fast. A busy store issues a few tickets a minute; the
/// defaults leave room for a rush and for many phones behind one carrier address, and stop a script.
public struct PublicLimits: Sendable {
    public var ticketsPerAddress = RateLimiter.Rule(burst: 5, interval: .seconds(60))
    public var ticketsPerStore = RateLimiter.Rule(burst: 20, interval: .seconds(6))
    public var bookingsPerAddress = RateLimiter.Rule(burst: 5, interval: .seconds(120))
    public var bookingsPerStore = RateLimiter.Rule(burst: 20, interval: .seconds(6))
    /// Virtual tickets waiting at once per place of the store's capacity (a store for 50 holds 200).
    public var openTicketsPerPlace = 4
    /// How far ahead a visit can be booked.
    public var bookingHorizonDays = 14
    /// Bookings one device may hold at once, all stores together.
    public var maxBookingsPerHolder = 4

    public init() {}
}

/// The checks before the server creates an app ticket or a booking for an anonymous client, in the order
/// that keeps one client from spending anyone else's allowance: the holder token, the client address's
/// rate, the holder's own rules (one live ticket per store, a few bookings), the store's cap on waiting
/// virtual tickets, then the store's rate (taken last, and only when everything else passed).
final class TicketGate: Sendable {
    struct Pass: Sendable {
        var holder: Holder
        /// Set when the request came without a token: the answer hands it out.
        var newToken: String?
    }

    let limits: PublicLimits
    let tokens: HolderTokens
    let holders: Holders
    private let perAddress: [TicketKind: RateLimiter]
    private let perStore: [TicketKind: RateLimiter]

    /// Whether a ticket is still live (for forgetting the holders of those that are over).
    private let isLive: @Sendable (TicketID) -> Bool
    private let issued = Atomic<Int>(0)
    static let sweepEvery = 4096

    init(limits: PublicLimits, tokens: HolderTokens, holders: Holders, isLive: @escaping @Sendable (TicketID) -> Bool) {
        self.limits = limits
        self.tokens = tokens
        self.holders = holders
        self.isLive = isLive
        holders.forgetOver(isLive: isLive)  // what was loaded from the database and is over since
        perAddress = [
            .app: RateLimiter(limits.ticketsPerAddress), .booking: RateLimiter(limits.bookingsPerAddress),
        ]
        perStore = [.app: RateLimiter(limits.ticketsPerStore), .booking: RateLimiter(limits.bookingsPerStore)]
    }

    /// Lets one creation of `kind` at `live`'s store through, or throws the refusal (401, 409, 429, 503).
    /// A pass must be ended with ``finish(_:ticket:)``.
    func enter(
        _ kind: TicketKind,
        store live: StoreLogs.Live,
        token: String?,
        address: String,
        at now: Timestamp
    ) throws(APIError) -> Pass {
        let pass: Pass
        if let token {
            guard let holder = tokens.holder(token) else {
                throw APIError(
                    .unauthorized,
                    "unknown holder token — send the \(HolderTokens.header) this server gave, or none for a new one",
                    field: HolderTokens.header
                )
            }
            pass = Pass(holder: holder, newToken: nil)
        } else {
            let token = tokens.mint()
            pass = Pass(holder: tokens.holder(token)!, newToken: token)
        }
        let store = live.record.id
        if let wait = perAddress[kind]!.take(address, at: now) {
            throw APIError(
                .tooManyRequests,
                "too many \(Self.noun(kind)) from your address — try again in \(wait) s",
                retryAfter: wait
            )
        }
        do throws(APIError) {
            try holders.begin(pass.holder, kind: kind, store: store) { id in
                guard let entry = StoreLogs.liveEntry(id, in: live.state) else { return nil }
                return entry.ticket
            }
            if kind == .app {
                let cap = live.state.capacity * limits.openTicketsPerPlace
                let open = live.state.waitingCount(of: .app)
                if open >= cap {
                    holders.finish(pass.holder, ticket: nil)
                    throw APIError(
                        .serviceUnavailable,
                        "this store's virtual line is full (\(open) waiting) — try again later or take a paper ticket at the entrance",
                        retryAfter: 60
                    )
                }
            }
            if let wait = perStore[kind]!.take(store.uuidString, at: now) {
                holders.finish(pass.holder, ticket: nil)
                throw APIError(
                    .tooManyRequests,
                    "this store is taking many \(Self.noun(kind)) right now — try again in \(wait) s",
                    retryAfter: wait
                )
            }
        } catch {
            perAddress[kind]!.giveBack(address)
            throw error
        }
        return pass
    }

    func finish(_ pass: Pass, ticket: TicketID?) {
        holders.finish(pass.holder, ticket: ticket)
        guard ticket != nil else { return }
        if issued.add(1, ordering: .relaxed).newValue % Self.sweepEvery == 0 { holders.forgetOver(isLive: isLive) }
    }

    private static func noun(_ kind: TicketKind) -> String { kind == .booking ? "bookings" : "tickets" }
}
