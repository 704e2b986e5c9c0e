/// Which tickets became called since the last look: what the voice calls out and what the window display
/// lists as "last called". The queue knows who is called now; this remembers who was announced.
///
/// The first look only takes note (a restarted kiosk does not call out everyone called before it stopped). A
/// ticket is announced once a day even if it drops out of the called places and comes back (a walk-in took
/// the place for a moment).
public struct CallWatch: Sendable, Equatable {
    /// The last calls announced, newest first (at most ``recentLimit``).
    public private(set) var recent: [TicketCode] = []
    public let recentLimit: Int
    private var announced: Set<TicketID> = []
    private var day: BusinessDay?

    public init(recentLimit: Int = 5) {
        self.recentLimit = recentLimit
    }

    /// The tickets among `called` (their ids, first in line first) not announced yet on `day`, in line order,
    /// by their codes (`code` is asked only for those). Ids, not tickets: a store with many places has as many
    /// tickets called, and the board looks on every change of the queue.
    public mutating func newlyCalled(
        _ called: some Sequence<TicketID>,
        on day: BusinessDay,
        code: (TicketID) -> TicketCode?
    ) -> [TicketCode] {
        guard self.day == day else {
            // A new day (or the first look): note who is called, announce nobody.
            self.day = day
            announced = Set(called)
            recent = []
            return []
        }
        let fresh = called.filter { announced.insert($0).inserted }.compactMap(code)
        recent = Array((fresh.reversed() + recent).prefix(recentLimit))
        return fresh
    }
}
