/// Staff pause the line's calls — a restock, an incident — as events of the store's log:
/// ``StoreEvent/Body/linePaused(reason:until:by:)``, with a reason and an optional end, and
/// ``StoreEvent/Body/lineResumed(by:)``. The store's manager writes them in the console or through the API, a
/// door's staff on the kiosk's manager page; the bounds here are every writer's and the server's.
///
/// While a pause holds nobody is called and the door admits no ticket (it says the calls are paused: the holder
/// keeps their place); tickets are still issued and told the longer wait (what is left of a pause with an end);
/// exits and people let in by staff count as ever. When it ends — its end passes, or staff resume — calls go on
/// in order, and a ticket called before it gets a whole call window again from then (a booking whose lateness the
/// pause covered, too). The fold keeps the day's latest pause by its time and the earliest resume after it,
/// whatever order the events reach a log in; a day that starts afresh ends it (``LinePauses``).
public struct LinePause: Sendable, Hashable, Codable {
    /// When staff paused, until when they said (nil: until they resume), why, and who.
    public var since: Timestamp
    public var until: Timestamp?
    public var reason: String
    public var by: String
    /// When staff resumed, and who, if they did before `until`.
    public var resumed: Timestamp?
    public var resumedBy: String?

    /// When it ends or ended: staff's resume or its planned end, whichever comes first; nil while neither is known.
    public var end: Timestamp? {
        switch (until, resumed) {
        case (let until?, let resumed?): min(until, resumed)
        case (let until?, nil): until
        case (nil, let resumed): resumed
        }
    }

    /// Whether `other`, paused at the same instant, replaces this one: it holds longer, or as long with words
    /// that sort after.
    func precedes(_ other: LinePause) -> Bool {
        let mine = until?.milliseconds ?? .max
        let theirs = other.until?.milliseconds ?? .max
        return mine != theirs ? mine < theirs : (reason, by) < (other.reason, other.by)
    }

    /// Whether calls are paused at `now`.
    public func holds(at now: Timestamp) -> Bool {
        since <= now && end.map { now < $0 } ?? true
    }
}

extension LinePause {
    /// Why: the staff's words, shown at the door and on the ticket's page.
    public static let reason = TextLimit(1...120)
    /// Who paused or resumed: a manager's user name, or the door's device name.
    public static let by = StaffCount.by
    /// How long a pause may be planned for, in minutes (12 hours); none planned: until staff resume.
    public static let minutes = 1...720
    /// How long a door's staff may pause for (an hour): a door's pause always has an end, so that a stolen box
    /// cannot stop its store's calls for the day; a longer one is the manager's.
    public static let doorMinutes = 1...60

    /// A pause as staff ask for it: clup-server's `POST /v1/stores/{store}/pause` and kioskd's `POST /door/pause`.
    public struct PauseRequest: Sendable, Codable {
        public var reason: String
        public var minutes: Int?

        public init(reason: String, minutes: Int?) {
            self.reason = reason
            self.minutes = minutes
        }
    }

    /// The end of a pause of `minutes` asked for at `now` (nil: until staff resume); the caller checked `minutes`.
    public static func until(minutes: Int?, from now: Timestamp) -> Timestamp? {
        minutes.map { end(after: now, minutes: $0) }
    }

    /// `minutes` after `time`: a pause's end, or the latest one a writer may plan.
    public static func end(after time: Timestamp, minutes: Int) -> Timestamp {
        time + .seconds(60 * Int64(minutes))
    }

    /// What is wrong with a pause event's values written at `time` (the field, and what to send instead), nil if
    /// nothing is or the event is of another type.
    public static func problem(_ body: StoreEvent.Body, at time: Timestamp) -> (field: String, message: String)? {
        switch body {
        case .linePaused(let why, let until, let who):
            if !reason.allows(why) { return ("reason", "why the calls pause: 1–120 characters") }
            if let until, until <= time || until > end(after: time, minutes: minutes.upperBound) {
                return ("until", "the pause's end: after its time, and at most 12 hours after it")
            }
            if !by.allows(who) { return ("by", "who paused the calls: 1–64 characters") }
        case .lineResumed(let who):
            if !by.allows(who) { return ("by", "who resumed the calls: 1–64 characters") }
        default:
            break
        }
        return nil
    }
}

/// The day's pauses as the fold keeps them (``LinePause``): the latest by its time, when the one before it ended,
/// and the resumes since it began (a resume may reach a log before its pause: the pause ends at the earliest after
/// it, whatever the order).
public struct LinePauses: Sendable, Hashable, Codable {
    /// A resume: when, and who.
    struct Resume: Sendable, Hashable, Codable, Comparable {
        var at: Timestamp
        var by: String

        static func < (a: Self, b: Self) -> Bool { (a.at, a.by) < (b.at, b.by) }
    }

    /// The day's latest pause, held or over.
    public internal(set) var latest: LinePause?
    /// When the pause before ``latest`` ended, if it had by then.
    var earlierEnd: Timestamp?
    /// The day's resumes not before ``latest`` began, earliest first: at most ``keptResumes`` (the earliest).
    var resumes: [Resume] = []

    /// Resumes kept for pauses still to come: a day has a few; more are kept in the log only.
    static let keptResumes = 64

    public init() {}

    /// Staff paused at `since`: it replaces an earlier pause (one that ended is remembered as ended), an older one
    /// is kept in the log for the record.
    mutating func pause(since: Timestamp, until: Timestamp?, reason: String, by: String) {
        var new = LinePause(since: since, until: until, reason: reason, by: by)
        if let latest {
            // Two at the same instant: the one that holds longer, then by their words (the same in any order).
            guard since > latest.since || (since == latest.since && latest.precedes(new)) else { return }
            if let end = latest.end, end <= since { earlierEnd = max(earlierEnd ?? end, end) }
        }
        resumes.removeAll { $0.at < since }
        if let first = resumes.first {
            new.resumed = first.at
            new.resumedBy = first.by
        }
        latest = new
    }

    /// Staff resumed at `time`: the latest pause ends then, if it began by then and had not ended earlier.
    mutating func resume(at time: Timestamp, by: String) {
        let resume = Resume(at: time, by: by)
        if let latest, time < latest.since { return }
        resumes.insert(resume, at: resumes.firstIndex { resume < $0 } ?? resumes.count)
        if resumes.count > Self.keptResumes { resumes.removeLast() }
        guard var pause = latest, let first = resumes.first else { return }
        pause.resumed = first.at
        pause.resumedBy = first.by
        latest = pause
    }

    /// What of them belongs to a day that started at `start`: events stamped since (a device's, that reached the
    /// log before the day's start did).
    mutating func keep(since start: Timestamp) {
        if let latest, latest.since < start { self.latest = nil }
        if let earlierEnd, earlierEnd < start { self.earlierEnd = nil }
        resumes.removeAll { $0.at < start }
    }

    /// The pause that holds at `now`, if one does.
    public func holding(at now: Timestamp) -> LinePause? {
        latest.flatMap { $0.holds(at: now) ? $0 : nil }
    }

    /// When calls last went on after a pause, by `now`: a ticket called before it is called again from then.
    func restarted(at now: Timestamp) -> Timestamp? {
        let latestEnd = latest.flatMap { pause in pause.end.flatMap { $0 <= now ? $0 : nil } }
        let earlier = earlierEnd.flatMap { $0 <= now ? $0 : nil }
        switch (latestEnd, earlier) {
        case (let a?, let b?): return max(a, b)
        case (let a, let b): return a ?? b
        }
    }
}
