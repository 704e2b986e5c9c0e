/// Which tickets became called since the last look: what the voice calls out and what the window display
/// lists as "last called". The queue knows who is called now; this remembers who was announced.
///
/// The first look only takes note (a restarted kiosk does not call out everyone called before it stopped). A
/// ticket is announced once a day even if it drops out of the called places and comes back (a walk-in took
/// the place for a moment) — and again when staff's pause of the calls ends (its holder's call window starts
/// again then: ``LinePause``).
public struct CallWatch: Sendable, Equatable {
    /// The last calls announced, newest first (at most ``recentLimit``).
    public private(set) var recent: [TicketCode] = []
    public let recentLimit: Int
    private var announced: Set<TicketID> = []
    /// Which call of each announced ticket was said last (``recalled(_:calls:code:)``).
    private var said: [TicketID: Int] = [:]
    private var day: BusinessDay?
    /// The pause seen last, and when calls last went on after one.
    private var pauseSince: Timestamp?
    private var restarted: Timestamp?

    public init(recentLimit: Int = 5) {
        self.recentLimit = recentLimit
    }

    /// Looks at staff's pauses before ``newlyCalled(_:on:code:)``: whether a pause began since the last look (the
    /// voice says the calls are paused); when one ended, those called now are announced again.
    public mutating func pauses(_ pauses: LinePauses, at now: Timestamp) -> Bool {
        let holding = pauses.holding(at: now)
        let restart = pauses.restarted(at: now)
        defer {
            pauseSince = holding?.since ?? pauseSince
            restarted = restart
        }
        guard day != nil else { return false }  // the first look takes note
        if restart != restarted, restart != nil {
            announced.removeAll()
            said.removeAll()
        }
        return holding.map { $0.since != pauseSince } ?? false
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
            said = [:]
            recent = []
            return []
        }
        let fresh = called.filter { announced.insert($0).inserted }.compactMap(code)
        remember(fresh)
        return fresh
    }

    /// The tickets among `called` (announced already: look with ``newlyCalled(_:on:code:)`` first) whose call
    /// number, `calls` (``QueueState/call(of:at:window:recall:)``), rose since the last look: each is called
    /// out again. A ticket first seen on a later call (a kiosk started then) only takes note.
    public mutating func recalled(
        _ called: some Sequence<TicketID>,
        calls: (TicketID) -> Int?,
        code: (TicketID) -> TicketCode?
    ) -> [TicketCode] {
        var again: [TicketCode] = []
        for id in called where announced.contains(id) {
            guard let number = calls(id) else { continue }
            let before = said.updateValue(number, forKey: id)
            if let before, number > before, let code = code(id) { again.append(code) }
        }
        remember(again)
        return again
    }

    /// `codes` called out now: first in the recent calls, each once.
    private mutating func remember(_ codes: [TicketCode]) {
        guard !codes.isEmpty else { return }
        recent = Array((codes.reversed() + recent.filter { !codes.contains($0) }).prefix(recentLimit))
    }
}
