import Crypto
import KioskCore
import Synchronization

/// What anonymous clients may create, and how fast. A busy store issues a few tickets a minute; the
/// defaults leave room for a rush and for many phones behind one carrier address, and stop a script.
public struct PublicLimits: Sendable {
    public var ticketsPerAddress = RateLimiter.Rule(burst: 5, interval: .seconds(60))
    /// New holders (tickets and bookings asked for without a `Clup-Holder`) per client address: "one live
    /// ticket per holder" binds only a client that sends its token, so one that never does is held to this.
    /// A shopper's device takes its token with its first ticket and keeps it.
    public var newHoldersPerAddress = RateLimiter.Rule(burst: 2, interval: .seconds(120))
    /// A store's rate, when no work is asked (with it, the work's price is the store's budget).
    public var ticketsPerStore = RateLimiter.Rule(burst: 20, interval: .seconds(6))
    public var bookingsPerAddress = RateLimiter.Rule(burst: 5, interval: .seconds(120))
    public var bookingsPerStore = RateLimiter.Rule(burst: 20, interval: .seconds(6))
    /// Virtual tickets waiting at once per place of the store's capacity (a store for 50 holds 200).
    public var openTicketsPerPlace = 4
    /// How far ahead a visit can be booked.
    public var bookingHorizonDays = 14
    /// Bookings one device may hold at once, all stores together.
    public var maxBookingsPerHolder = 4
    /// The proof of work a ticket or a booking costs (``TicketWork``); nil asks for none (a closed network,
    /// tests of other things).
    public var work: WorkRule? = WorkRule()

    public init() {}
}

/// The checks before the server creates an app ticket or a booking for an anonymous client, in the order
/// that keeps one client from spending anyone else's allowance: its proof of work (so that requests that did
/// not pay spend nothing of anyone's, and a flood from many addresses cannot exhaust a store's rate), the
/// holder token, the client address's
/// rate, the holder's own rules (one live ticket per store, a few bookings), the store's cap on waiting
/// virtual tickets, then the store's rate (taken last, and only when everything else passed).
final class TicketGate: Sendable {
    /// One kind's rates: per client address and per store.
    private struct Rates: Sendable {
        let address: RateLimiter
        let store: RateLimiter
    }

    let limits: PublicLimits
    let tokens: HolderTokens
    let holders: Holders
    /// Asked of every ticket and booking when `limits.work` is set; else its challenges ask for 0 bits.
    let work: TicketWork
    private let tickets: Rates
    private let bookings: Rates
    private let newHolders: RateLimiter

    /// Whether a ticket is still live (for forgetting the holders of those that are over).
    private let isLive: @Sendable (TicketID) -> Bool
    private let issued = Atomic<Int>(0)
    static let sweepEvery = 4096

    init(
        limits: PublicLimits,
        tokens: HolderTokens,
        holders: Holders,
        workKey: SymmetricKey,
        isLive: @escaping @Sendable (TicketID) -> Bool
    ) {
        self.limits = limits
        work = TicketWork(rule: limits.work ?? WorkRule(baseBits: 0, maxBits: 0), key: workKey)
        self.tokens = tokens
        self.holders = holders
        self.isLive = isLive
        holders.forgetOver(isLive: isLive)  // what was loaded from the database and is over since
        tickets = Rates(address: RateLimiter(limits.ticketsPerAddress), store: RateLimiter(limits.ticketsPerStore))
        bookings = Rates(address: RateLimiter(limits.bookingsPerAddress), store: RateLimiter(limits.bookingsPerStore))
        newHolders = RateLimiter(limits.newHoldersPerAddress)
    }

    /// A creation let through: the holder it is for, and the holder's new token when the request came without
    /// one. Given back by ``finish(_:ticket:)`` once the ticket was issued, or was not.
    struct Pass: Sendable {
        let holder: Holder
        let newToken: String?
    }

    /// Lets an app ticket or a booking at `live`'s store through for an anonymous client, if every check does
    /// (else the refusal: unauthorized, conflict, too many, unavailable). The holder's attempt is reserved
    /// until ``finish(_:ticket:)``, which the caller owes, whether it issued the ticket or not.
    func admit(
        _ kind: TicketKind,
        store live: StoreQueues.Live,
        token: String?,
        work proof: String?,
        address: String,
        at now: Timestamp
    ) throws(Refusal) -> Pass {
        if kind == .app {
            try Self.handsOut(live.record.profile, at: now)
            try Self.lastTickets(live, at: now)
        }
        if limits.work != nil { try work.spend(proof, store: live.record.id, at: now) }
        let (holder, newToken) = try enter(kind, store: live, token: token, address: address, at: now)
        return Pass(holder: holder, newToken: newToken)
    }

    /// Ends a creation: the holder holds `ticket` (nil: nothing was issued, the attempt is given back).
    func finish(_ pass: Pass, ticket: TicketID?) {
        holders.finish(pass.holder, ticket: ticket)
        guard ticket != nil else { return }
        if issued.add(1, ordering: .relaxed).newValue % Self.sweepEvery == 0 { holders.forgetOver(isLive: isLive) }
    }

    /// Lets one creation through and reserves the holder's attempt.
    private func enter(
        _ kind: TicketKind,
        store live: StoreQueues.Live,
        token: String?,
        address: String,
        at now: Timestamp
    ) throws(Refusal) -> (Holder, newToken: String?) {
        let holder: Holder
        var newToken: String?
        if let token {
            guard let known = tokens.holder(token) else {
                throw Refusal(
                    .unauthorized,
                    "unknown holder token — send the \(HolderTokens.header) this server gave, or none for a new one",
                    field: HolderTokens.header
                )
            }
            holder = known
        } else {
            if let wait = newHolders.take(address, at: now) {
                throw Refusal(
                    .tooMany,
                    "too many new devices from your address — send the \(HolderTokens.header) this server gave "
                        + "with your first ticket, or try again in \(wait) s",
                    retryAfter: wait
                )
            }
            let token = tokens.mint()
            holder = tokens.holder(token)!
            newToken = token
        }
        let rates = kind == .booking ? bookings : tickets
        let store = live.record.id
        if let wait = rates.address.take(address, at: now) {
            throw Refusal(
                .tooMany,
                "too many \(Self.noun(kind)) from your address — try again in \(wait) s",
                retryAfter: wait
            )
        }
        do throws(Refusal) {
            try holders.begin(holder, kind: kind, store: store) { id in
                StoreQueues.liveEntry(id, in: live.state)?.ticket
            }
            do throws(Refusal) {
                try checkStore(kind, live: live, rate: rates.store, at: now)
            } catch {
                holders.finish(holder, ticket: nil)
                throw error
            }
        } catch {
            rates.address.giveBack(address)
            throw error
        }
        return (holder, newToken)
    }

    /// The store's side: its cap on waiting virtual tickets, then (without the work) its rate, taken last.
    private func checkStore(
        _ kind: TicketKind,
        live: StoreQueues.Live,
        rate: RateLimiter,
        at now: Timestamp
    )
        throws(Refusal)
    {
        if kind == .app {
            let cap = live.state.capacity * limits.openTicketsPerPlace
            let open = live.state.waitingCount(of: .app)
            if open >= cap {
                throw Refusal(
                    .unavailable,
                    "this store's virtual line is full (\(open) waiting) — try again later or take a paper ticket at the entrance",
                    retryAfter: 60
                )
            }
        }
        // With the work asked, its rising price is the store's budget: a count per store can be spent for
        // everyone by whoever has enough addresses, a price cannot (each ticket costs its own client more).
        if limits.work == nil, let wait = rate.take(live.record.id.uuidString, at: now) {
            throw Refusal(
                .tooMany,
                "this store is taking many \(Self.noun(kind)) right now — try again in \(wait) s",
                retryAfter: wait
            )
        }
    }

    /// Refuses a virtual ticket while the store hands out none (closed, before its window): 409 with reason
    /// `closed`, saying when it opens and from when it hands out tickets, and Retry-After until then.
    static func handsOut(_ profile: StoreProfile, at now: Timestamp) throws(Refusal) {
        let calendar = profile.calendar
        guard case .closed(_, let opens, let from) = calendar.phase(at: now), now < from else { return }
        var error = Refusal(
            .conflict,
            "the store is closed — it opens at \(calendar.text(of: opens, from: now)); tickets from "
                + "\(calendar.text(of: from, from: now)) (or take a paper ticket at the entrance)",
            retryAfter: Int(min(from - now, .seconds(7 * 86_400)).components.seconds) + 1
        )
        error.reason = "closed"
        throw error
    }

    /// Refuses an app ticket whose wait would pass the day's closing, where the store stops issuing then
    /// (``LastTickets``): 409 with reason `past_closing`, Retry-After until the closing (then the next day's
    /// tickets, as its hours hand them out).
    static func lastTickets(_ live: StoreQueues.Live, at now: Timestamp) throws(Refusal) {
        guard live.record.profile.stopTicketsPastClosing else { return }
        let wait = live.wait(position: live.state.lineLength(at: now), at: now)
        guard let closes = LastTickets.closingPassed(by: wait.point, queue: live.state, at: now) else { return }
        let calendar = live.record.profile.calendar
        var error = Refusal(
            .conflict,
            "no more tickets today: a ticket taken now would wait about \(wait.point.minutesRoundedUp) minutes, past "
                + "closing at \(calendar.text(of: closes, from: now))",
            retryAfter: Int(min(closes - now, .seconds(86_400)).components.seconds) + 1
        )
        error.reason = "past_closing"
        throw error
    }

    private static func noun(_ kind: TicketKind) -> String { kind == .booking ? "bookings" : "tickets" }

    /// Checks that `token` (a `Clup-Holder` value) is the holder token of the device that took ticket `id`: a
    /// token this server did not make is refused as unknown, another device's as forbidden — "only the device
    /// that took this ticket can `what`". The ticket id, or anything in its QR, is never enough.
    func requireHolder(_ token: String, of id: TicketID, to what: String) throws(Refusal) {
        guard let holder = tokens.holder(token) else {
            throw Refusal(.unauthorized, "unknown holder token", field: HolderTokens.header)
        }
        guard holders.holder(of: id) == holder else {
            throw Refusal(.forbidden, "only the device that took this ticket can \(what)")
        }
    }
}
