/// A kept roll told again after its line changed within the grid step it started in (issue 44: a long line
/// changes every few seconds — a called holder comes in, a visit ends, a call window runs out — and a store of
/// hundreds waiting rolled its whole line anew for most tickets taken: drawn store 7, lines of 500, 218 µs a told
/// wait; 17 with this).
///
/// A place is told by how many places must be freed before it is called: in the roll, place `q` is called when
/// `q − free + 1` places have been freed since its start (the first `free` are called at once). After the
/// change, place `p` of the new line needs `p − free′ + 1`, so it is told what the roll told place
/// `p + free − free′`: an admission (a called holder gone in, a place fewer free) moves everyone one place on the
/// roll, an exit (a place freed) one back, a window that ran out (its holder gone, its place given to the next)
/// none. What the roll expected of the places freed in its first step stands: a fresh roll made later in the same
/// step counts that step whole too (the grid tells the same steps).
///
/// Not beyond the step. Measured (clup-sim, two at a time): the same rule a minute on, the places the roll
/// expected in that minute taken off every place's need, told the discount store's rush 1.19 times the oracle's
/// error and the big store 1.09 (1.13 and 1.04 rolled anew each step); each ticket told what the roll told it, a
/// minute less, 1.31 and 1.26 — the roll still expects those who left in the minute to leave later (it does not
/// know who of those inside left), and a minute of a store of 200's departures is much to lose.
extension LineRoll {
    /// Whether the roll can tell `newer`'s line at `now`, in the grid step it started in: the same store, day,
    /// pauses and bookings to come, and a line that is the roll's with tickets gone and tickets joined at its end.
    /// False when it cannot (roll anew).
    mutating func realign(to newer: QueueState, at now: Timestamp) -> Bool {
        guard let joining = progress?.joining, let free = progress?.free, progress?.settled == false, now >= start,
            newer.capacity == state.capacity, newer.hours == state.hours, newer.pauses == state.pauses,
            newer.isOpen(at: now),
            newer.upcomingJoinCount(after: now, through: bookingHorizon)
                == joining.lazy.filter({ $0.joined > now }).count,
            let joined = joined(to: newer.linePlaces(at: now))
        else { return false }
        realigned = (shift: free - newer.freePlaces, free: newer.freePlaces)
        state = newer
        join(joined)
        return true
    }

    /// The tickets that joined the roll's line at its end to make `line` (others may be gone from it); nil for
    /// any other change. Walked together (both sorted by key): a ticket of the new line not in the roll's must
    /// come after all of the roll's.
    private func joined(to line: [LineKey]) -> [LineKey]? {
        guard let rolled = progress?.line else { return nil }
        var old = 0
        var joined: [LineKey] = []
        for key in line {
            while old < rolled.count, rolled[old] < key { old += 1 }
            if old < rolled.count, rolled[old] == key {
                old += 1
            } else if old < rolled.count || joined.last.map({ !($0 < key) }) == true {
                return nil
            } else {
                joined.append(key)
            }
        }
        return joined
    }

    /// Tickets joined at the line's end take the roll's places after its last. Those the roll told already (a
    /// ticket is told the place after the last before it joins) hold their places from the step they were told
    /// in, as they would have had they been in line: left out, every later place was told late by what they hold.
    mutating func join(_ places: [LineKey]) {
        guard var p = progress.take() else { return }
        let first = p.line.count
        p.line += places  // in place: a copy would copy the line
        // Told and not held: from the first joined to the last told (none when the roll told fewer places).
        let end = min(p.line.count, p.next, p.told.count)
        let told = first < end ? Array(p.told[first..<end]) : []
        progress = p
        for (offset, range) in told.enumerated() {
            hold(p.line[first + offset], at: steps(range.point - untilStart), elapsed: 0)
        }
    }

    /// The end of the bookings a roll looks up as they join (``begin()``).
    var bookingHorizon: Timestamp { start + Self.step * WaitEstimator.horizonSteps }
}

extension QueueState {
    /// How many tickets join the line after `now` through `end` (bookings whose slots start then).
    func upcomingJoinCount(after now: Timestamp, through end: Timestamp) -> Int {
        max(lineLength(at: end) - lineLength(at: now), 0)
    }
}
