/// What a store's own history says about its line, for the wait estimate (``WaitEstimator``): how long visits
/// last, how often a called ticket never comes, and how long a called ticket takes to reach the door. Learnt by
/// the server from the store's log (``learn(_:prior:now:)``) and synced to its kiosks, so paper and app tell
/// the same number; a store without history has the prior: its configured average visit.
public struct WaitModel: Sendable, Hashable, Codable {
    public var visit: VisitLength
    /// Share of called app tickets and bookings whose place goes unused: they expire after the call window (or
    /// their slot's), whether their holder never came or came too late (``neverCame`` + ``cameAfterWindow``).
    public var noShow: Double
    /// Of those, the share that never came, and the share whose holder came after the window and was refused at
    /// the door (its `scanRefused` "expired" or "too_late" in the log). Told apart for the manager and the
    /// simulator; the line rolls with ``noShow``, as both leave the place unused until the window ends.
    public var neverCame: Double
    public var cameAfterWindow: Double
    /// The same for app tickets, by how long they had waited in line when called (bins of ``noShowWaitEdges``):
    /// a holder told a short wait who lives farther than the call window lasts cannot make it in time, one who
    /// waited long has timed the trip. A store's log shows both as expiries; the line ahead of a ticket rolls
    /// with the share of the wait each ticket will have had.
    public var appNoShowByWait: [Double]
    /// The share of called bookings that expired: a booking's holder knows the slot's start and plans for it,
    /// so it is learnt apart from app tickets called sooner than their holders could come.
    public var bookingNoShow: Double
    /// The told range as the store's own scored tickets put it (nil until it has some: the model's own range).
    public var calibration: RangeCalibration?
    /// How far the calibrated range's ends are moved while the store's days go unlike those it was calibrated on.
    public var rangeShift: RangeShift
    /// How long a called ticket that came took to reach the door: shares of ``delayBinSeconds`` bins from 0.
    public var appDelay: [Double]
    public var paperDelay: [Double]
    /// The same for app tickets that had waited ``plannedWait`` or more in line when called: their holders had
    /// time to time their trip and come about when called, where one told "5 min" who lives 12 away comes late.
    public var plannedAppDelay: [Double]
    /// Days of history it was learnt from, and the admissions and exits that showed the visit length.
    public var days: Int
    public var admissions: Int
    public var computedAt: Timestamp

    /// The width of a delay bin.
    public static let delayBinSeconds = 30
    /// A wait in line after which an app ticket's holder is taken to have planned the trip to the door.
    public static let plannedWait: Duration = .minutes(15)
    /// The share of called app tickets and bookings assumed never to come until a store's log says.
    public static let priorNoShow = 0.1
    public init(
        visit: VisitLength,
        noShow: Double = priorNoShow,
        appNoShowByWait: [Double]? = nil,
        bookingNoShow: Double? = nil,
        appDelay: [Double] = [0.6, 0.2, 0.1, 0.1],
        paperDelay: [Double] = [1],
        plannedAppDelay: [Double]? = nil,
        calibration: RangeCalibration? = nil,
        rangeShift: RangeShift = RangeShift(),
        cameAfterWindow: Double = 0,
        days: Int = 0,
        admissions: Int = 0,
        computedAt: Timestamp = Timestamp(milliseconds: 0)
    ) {
        self.visit = visit
        self.noShow = min(max(noShow, 0), 0.95)
        self.cameAfterWindow = min(max(cameAfterWindow, 0), self.noShow)
        self.neverCame = self.noShow - self.cameAfterWindow
        let byWait = appNoShowByWait ?? Array(repeating: noShow, count: Self.noShowWaitEdges.count + 1)
        self.appNoShowByWait = byWait.map { min(max($0, 0), 0.98) }
        self.bookingNoShow = min(max(bookingNoShow ?? self.noShow, 0), 0.95)
        self.appDelay = Self.normalised(appDelay)
        self.paperDelay = Self.normalised(paperDelay)
        self.plannedAppDelay = Self.normalised(plannedAppDelay ?? appDelay)
        self.calibration = calibration
        self.rangeShift = rangeShift
        self.days = days
        self.admissions = admissions
        self.computedAt = computedAt
    }

    /// The told range about `point` as the store's own scored tickets put it, its ends moved by ``rangeShift``;
    /// nil where its group has too few (the model's own spread stands, unshifted).
    public func calibratedRange(about point: Duration) -> WaitRange? {
        guard let calibrated = calibration?.range(about: point) else { return nil }
        return rangeShift.applied(to: WaitRange(point: point, low: calibrated.low, high: calibrated.high))
    }

    /// The model of a store that has no history: its configured average visit.
    public static func prior(averageVisit: Duration) -> WaitModel {
        WaitModel(visit: VisitLength(meanMinutes: averageVisit.minutes))
    }

    static func normalised(_ shares: [Double]) -> [Double] {
        let total = shares.reduce(0) { $0 + max($1, 0) }
        guard total > 0 else { return [1] }
        return shares.map { max($0, 0) / total }
    }
}

extension WaitModel {
    private enum CodingKeys: String, CodingKey {
        case visit, noShow, appNoShowByWait, appDelay, paperDelay, plannedAppDelay, calibration, days, admissions
        case computedAt, cameAfterWindow, bookingNoShow, rangeShift
    }

    /// A model from a server of an earlier version has no ``plannedAppDelay`` (its app delay serves for both)
    /// nor ``appNoShowByWait`` (its no-show share serves for every wait) nor ``bookingNoShow`` (the same)
    /// nor ``calibration`` nor ``rangeShift`` nor ``cameAfterWindow`` (none told apart).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            visit: try c.decode(VisitLength.self, forKey: .visit),
            noShow: try c.decode(Double.self, forKey: .noShow),
            appNoShowByWait: try c.decodeIfPresent([Double].self, forKey: .appNoShowByWait)
                .flatMap { $0.count == Self.noShowWaitEdges.count + 1 ? $0 : nil },
            bookingNoShow: try c.decodeIfPresent(Double.self, forKey: .bookingNoShow),
            appDelay: try c.decode([Double].self, forKey: .appDelay),
            paperDelay: try c.decode([Double].self, forKey: .paperDelay),
            plannedAppDelay: try c.decodeIfPresent([Double].self, forKey: .plannedAppDelay),
            calibration: try c.decodeIfPresent(RangeCalibration.self, forKey: .calibration)
                .flatMap { $0.groups.count == RangeCalibration.edges.count + 1 ? $0 : nil },
            rangeShift: try c.decodeIfPresent(RangeShift.self, forKey: .rangeShift) ?? RangeShift(),
            cameAfterWindow: try c.decodeIfPresent(Double.self, forKey: .cameAfterWindow) ?? 0,
            days: try c.decode(Int.self, forKey: .days),
            admissions: try c.decode(Int.self, forKey: .admissions),
            computedAt: try c.decode(Timestamp.self, forKey: .computedAt)
        )
    }
}
