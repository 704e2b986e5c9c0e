import KioskCore
import Synchronization

/// How fast one kiosk may write to its store's log: at the pace its devices work, not at the pace a stolen
/// credential can send. Two budgets per kiosk (store and device), each a bucket of tokens
/// (``ConnectionLimits/eventsPerKiosk``, ``ConnectionLimits/ticketsPerKiosk``):
///
/// - **events**: 1,000 at once, then 2 a second. A tear-off writes two (the ticket taken, the next one printed),
///   a scan one or two, a person leaving one: a busy entrance writes well under one a second.
/// - **paper tickets**: 120 at once, then one every 2 seconds. A printer prints, cuts and presents a ticket in
///   about 2 s, and a customer must tear it off before the next one comes.
///
/// Buckets refill with the server's clock, and also with the kiosk's own over the time the server did not hear
/// from it: events carry their times, so a kiosk back from an outage pushes its backlog as fast as it wrote it
/// (an hour cut off, an hour's events at once), while events dated back into a time the server already heard
/// from the kiosk earn nothing (a flood cannot spread itself over the past year). A kiosk's refill is then at
/// most twice its pace. A budget the replica has not kept yet (its first push since the replica started) credits
/// the kiosk's clock over the last `catchUp` (a week: a kiosk cut off for longer catches up at its pace). What
/// does not fit waits: the server appends the part of a batch that fits and answers 429 with `Retry-After` for
/// a batch of which nothing fits; the kiosk keeps the rest in its outbox and pushes it later, so nothing is
/// lost. Each replica keeps its own budgets.
final class KioskPace: Sendable {
    struct Rule: Sendable {
        var perSecond: Double
        var burst: Double

        init(_ rule: RateLimiter.Rule) {
            burst = Double(rule.burst)
            perSecond = 1 / max(KioskPace.seconds(rule.interval), 0.000_001)
        }
    }

    let events: Rule
    let tickets: Rule
    static let catchUp: Duration = .seconds(7 * 86_400)

    init(events: RateLimiter.Rule, tickets: RateLimiter.Rule) {
        self.events = Rule(events)
        self.tickets = Rule(tickets)
    }

    private struct Budget {
        var events: Double
        var tickets: Double
        /// When the kiosk's last push came (its clock's credit is for times after this).
        var heard: Timestamp
        /// The latest event time credited.
        var cursor: Timestamp

        mutating func credit(_ seconds: Double, _ pace: KioskPace) {
            events = min(events + seconds * pace.events.perSecond, pace.events.burst)
            tickets = min(tickets + seconds * pace.tickets.perSecond, pace.tickets.burst)
        }
    }

    private let budgets = Mutex<[String: Budget]>([:])
    /// Budgets kept at most (a store has at most 100 kiosks); idle ones go first.
    static let maxKiosks = 100_000

    /// How many of `events` (a prefix, in order) the kiosk may append now, taken from its budgets (events of
    /// `free`, which the log holds already, cost nothing); when none, the seconds until one would fit.
    func take(
        _ events: [StoreEvent],
        kiosk: KioskGrant,
        free: Set<EventID> = [],
        now: Timestamp
    ) -> (allowed: Int, retryAfter: Int) {
        budgets.withLock { budgets in
            let key = Self.key(kiosk)
            if budgets[key] == nil, budgets.count >= Self.maxKiosks {
                budgets = budgets.filter { now - $0.value.heard < .seconds(3600) }
            }
            var budget =
                budgets[key]
                ?? Budget(
                    events: self.events.burst,
                    tickets: self.tickets.burst,
                    heard: now,
                    cursor: now - Self.catchUp
                )
            let waited = Self.seconds(now - budget.heard)
            budget.credit(waited, self)
            var allowed = 0
            for event in events {
                if event.time > budget.cursor {
                    budget.credit(Self.seconds(event.time - budget.cursor), self)
                    budget.cursor = event.time
                }
                if free.contains(event.id) {
                    allowed += 1
                    continue
                }
                let ticket = Self.isTicket(event)
                guard budget.events >= 1, !ticket || budget.tickets >= 1 else { break }
                budget.events -= 1
                if ticket { budget.tickets -= 1 }
                allowed += 1
            }
            budget.heard = now
            budget.cursor = max(budget.cursor, now)
            budgets[key] = budget
            guard allowed == 0, let first = events.first else { return (allowed, 0) }
            let short =
                Self.isTicket(first) && budget.tickets < 1
                ? (1 - budget.tickets) / self.tickets.perSecond : (1 - budget.events) / self.events.perSecond
            return (0, max(1, Int(short.rounded(.up))))
        }
    }

    /// Gives back what `events` took (they were in the log already: a retry, or a batch that was not appended).
    func refund(_ events: some Sequence<StoreEvent>, kiosk: KioskGrant) {
        budgets.withLock { budgets in
            guard var budget = budgets[Self.key(kiosk)] else { return }
            for event in events {
                budget.events = min(budget.events + 1, self.events.burst)
                if Self.isTicket(event) { budget.tickets = min(budget.tickets + 1, self.tickets.burst) }
            }
            budgets[Self.key(kiosk)] = budget
        }
    }

    private static func key(_ kiosk: KioskGrant) -> String { "\(kiosk.store.uuidString)/\(kiosk.device)" }

    private static func isTicket(_ event: StoreEvent) -> Bool {
        if case .ticketIssued = event.body { true } else { false }
    }

    static func seconds(_ duration: Duration) -> Double {
        max(0, Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}
