/// The estimated waiting time for someone with `peopleAhead` in front (R11, R12).
///
/// Until the store has history, the documented fallback: average visit time × people ahead ÷ capacity
/// (each place inside frees up once per average visit). Never negative; zero when nobody is ahead and
/// there is room.
public struct WaitEstimate: Sendable, Equatable {
    public var averageVisit: Duration
    public var capacity: Int

    public init(averageVisit: Duration, capacity: Int) {
        self.averageVisit = averageVisit
        self.capacity = capacity
    }

    public func wait(peopleAhead: Int, freePlaces: Int) -> Duration {
        let mustWaitFor = peopleAhead - freePlaces + 1
        guard mustWaitFor > 0, capacity > 0 else { return .zero }
        return averageVisit * Double(mustWaitFor) / Double(capacity)
    }

    /// Rounded up to whole minutes, as printed: "about 6 min".
    public static func minutes(_ duration: Duration) -> Int {
        let ms = duration.wholeMilliseconds
        return Int((ms + 59_999) / 60_000)
    }
}
