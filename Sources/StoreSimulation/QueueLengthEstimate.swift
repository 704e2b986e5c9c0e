import KioskCore

/// The `queue-length` baseline, the fallback clup-server and kioskd told before ``WaitEstimator``: average visit
/// × the admissions someone must wait for ÷ capacity (each place inside frees up once per average visit). Never
/// negative; zero when nobody is ahead and there is room.
struct QueueLengthEstimate: Sendable, Equatable {
    var averageVisit: Duration
    var capacity: Int

    func wait(peopleAhead: Int, freePlaces: Int) -> Duration {
        let mustWaitFor = peopleAhead - freePlaces + 1
        guard mustWaitFor > 0, capacity > 0 else { return .zero }
        return averageVisit * Double(mustWaitFor) / Double(capacity)
    }
}
