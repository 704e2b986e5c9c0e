/// A store's second call: a called ticket not seen at the door is called again every ``every`` after its call, up
/// to ``times`` times, while its call window lasts — on the window display, by the voice and on the holder's
/// page. Its window still counts from the first call (a recall warns; it does not extend).
///
/// Like the first call, a recall follows from the log and the clock, not from an event of its own: every kiosk
/// and replica that folds the same log with the same store settings says the same recall at the same moment,
/// offline too, and a restarted kiosk does not call out again what it called before it stopped.
public struct RecallPolicy: Sendable, Equatable {
    /// Between one call and the next.
    public let every: Duration
    /// Calls after the first, at most.
    public let times: Int

    /// The store's setting `recallMinutes`: 0 is "no second call".
    public static let minutes = 0...60
    /// The store's setting `recalls`.
    public static let timesRange = 1...5

    /// The policy of a store's settings; nil where there is no second call (`minutes` 0 or absent) or a value is
    /// out of its range (a kiosk follows only what it can check).
    public init?(minutes: Int?, times: Int?) {
        guard let minutes, minutes > 0, Self.minutes.contains(minutes) else { return nil }
        let times = times ?? 1
        guard Self.timesRange.contains(times) else { return nil }
        self.every = .seconds(Int64(minutes) * 60)
        self.times = times
    }

    /// Which call a ticket called at `called` is on at `now` (1: the first; 2: its first recall, ...): the
    /// recalls due by then, each strictly before the window of `window` ends.
    public func call(since called: Timestamp, window: Duration, at now: Timestamp) -> Int {
        guard now >= called else { return 1 }
        let ends = called + window
        var number = 1
        while number <= times {
            let recall = called + every * number
            guard recall <= now, recall < ends else { break }
            number += 1
        }
        return number
    }

    /// When the next recall after `now` is due, if one is left before the window ends.
    public func next(since called: Timestamp, window: Duration, at now: Timestamp) -> Timestamp? {
        let number = call(since: called, window: window, at: now)
        guard number <= times else { return nil }
        let recall = called + every * number
        return recall < called + window ? recall : nil
    }
}

extension QueueState {
    /// Which call `id` is on at `now` (``RecallPolicy/call(since:window:at:)``): nil while it is not called; 1
    /// without a second call. Counted from its call as its window counts it (after a pause, from its end).
    public func call(of id: TicketID, at now: Timestamp, window: Duration, recall: RecallPolicy?) -> Int? {
        isCalled(id, at: now) ? call(ofCalled: id, at: now, window: window, recall: recall) : nil
    }

    /// ``call(of:at:window:recall:)`` of a ticket known to be called (one of ``calledIDs(at:)``: the call board
    /// asks of each at every look), without finding its place in the line again.
    public func call(ofCalled id: TicketID, at now: Timestamp, window: Duration, recall: RecallPolicy?) -> Int? {
        guard let since = callTime(ofCalled: id, at: now) else { return nil }
        return recall?.call(since: since, window: window, at: now) ?? 1
    }
}
