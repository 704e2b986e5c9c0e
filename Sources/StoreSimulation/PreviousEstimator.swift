import KioskCore

/// The estimator clup-server shipped before ``WaitEstimator``, kept as the simulator's `previous` baseline:
/// how many people the door lets in per minute, by day of week and hour of day, from the admissions of the
/// last weeks (every hour divided by four weeks, whatever history the store has). Where an hour has too
/// little history, the fallback answers instead: average visit × people ahead ÷ capacity.
///
/// Someone with `k` people ahead and `f` free places waits for `k − f + 1` admissions; at `r` admissions
/// per minute in this hour that is `(k − f + 1) / r` minutes.
struct TrafficModel: Sendable, Equatable, Codable {
    /// Admissions per minute, `[weekday * 24 + hour]` (Monday = 0, local time); nil where too little is known.
    public private(set) var rates: [Double?]
    /// When the model was computed and over how many days.
    public private(set) var computedAt: Timestamp
    public private(set) var days: Int

    /// An hour needs this many admissions in the history before its rate is trusted.
    public static let minimumAdmissions = 20

    /// - Parameters:
    ///   - admissions: times of `ticketAdmitted` events in `[now − days, now)`.
    ///   - zone: the store's time zone (hours are the store's local hours, daylight saving included).
    public init(admissions: some Sequence<Timestamp>, days: Int, zone: StoreTimeZone, now: Timestamp) {
        var counts = [Int](repeating: 0, count: 7 * 24)
        let from = now - .seconds(Int64(days) * 86_400)
        for time in admissions where time >= from && time < now {
            counts[Self.bucket(time, zone: zone)] += 1
        }
        // Each weekday-hour occurs once a week: days / 7 times in the window (at least once).
        let occurrences = Double(max(days / 7, 1))
        rates = counts.map { $0 >= Self.minimumAdmissions ? Double($0) / (occurrences * 60) : nil }
        computedAt = now
        self.days = days
    }

    static func bucket(_ time: Timestamp, zone: StoreTimeZone) -> Int {
        let local = zone.localSeconds(at: time)
        let day = BusinessDay(number: local.floorDivided(by: 86_400))
        return day.weekday * 24 + Int((local - day.number * 86_400) / 3600)
    }

    /// The learnt estimate at `time`, or nil when this hour has too little history.
    public func wait(peopleAhead: Int, freePlaces: Int, at time: Timestamp, zone: StoreTimeZone) -> Duration? {
        guard let rate = rates[Self.bucket(time, zone: zone)], rate > 0 else { return nil }
        let mustWaitFor = peopleAhead - freePlaces + 1
        guard mustWaitFor > 0 else { return .zero }
        return .milliseconds(Int64((Double(mustWaitFor) / rate * 60_000).rounded()))
    }
}
