import Foundation
import KioskCore
import StrictTOML

/// A simulated store and its shoppers, read from a scenario file (TOML):
///
/// ```toml
/// seed = 7
/// days = 35                      # simulated days; the last `scored_days` are scored
/// scored_days = 7
/// [store]
/// capacity = 40
/// average_visit_minutes = 25     # what the manager configured (may be wrong on purpose)
/// call_window_minutes = 10
/// time_zone = "Europe/Rome"
/// opens = "08:00"
/// closes = "21:00"
/// [arrivals]                     # people who want to enter in each opening hour, Monday first
/// per_hour = [[...], ...]        # 7 rows, one a weekday (or 1 row used for every day)
/// app_share = 0.4
/// booking_share = 0.1
/// expected_visit_share = 0.5
/// no_show = 0.08
/// travel_from_minutes = 5        # app holders' journey from home to the door: uniform between these
/// travel_to_minutes = 20
/// rush_day = 34                  # optional, one unusual hour: on day 34 (0 = the first simulated day),
/// rush_hour = 7                  # in the 8th opening hour,
/// rush_people = 120              # this many more people come
/// [pause]                        # optional: staff pause the calls once (a restock, an incident)
/// day = 34                       # on day 34,
/// hour = 7                       # in the 8th opening hour,
/// minute = 20                    # 20 minutes into it,
/// minutes = 10                   # for 10 minutes (the pause says its end)
/// [visit]
/// distribution = "lognormal"     # or "exponential", "gamma"
/// mean_minutes = 28
/// sd_minutes = 14
/// ```
public struct Scenario: Sendable {
    public enum Distribution: String, Sendable, CaseIterable {
        case lognormal, exponential, gamma
    }

    public var name = "scenario"
    public var seed: UInt64 = 1
    public var days = 35
    public var scoredDays = 7
    public var capacity = 40
    public var averageVisitMinutes = 25
    public var callWindowMinutes = 10
    public var timeZone = "Europe/Rome"
    public var opens = TimeOfDay(hour: 8, minute: 0)
    public var closes = TimeOfDay(hour: 21, minute: 0)
    /// People who want to enter in each opening hour, by weekday (Monday first); one row for every day.
    public var perHour: [[Double]] = [Array(repeating: 40, count: 13)]
    public var appShare = 0.4
    public var bookingShare = 0.1
    public var expectedVisitShare = 0.5
    public var noShow = 0.08
    /// One unusual hour: on `day` (0 = the first simulated), in opening hour `hour`, `people` more come.
    public var rush: (day: Int, hour: Int, people: Double)?
    /// Staff pause the calls once: on `day`, in opening hour `hour`, `minute` into it, for `minutes`.
    public var pause: (day: Int, hour: Int, minute: Int, minutes: Int)?
    /// App holders' journey from home to the door, minutes (uniform).
    public var travelMinutes = 5.0...20.0
    public var distribution = Distribution.lognormal
    public var meanVisitMinutes = 28.0
    public var sdVisitMinutes = 14.0
    /// Booking slots: their length and how many a slot takes (a tenth of the capacity).
    public var slotMinutes = 15
    public var slotSize: Int { max(1, capacity / 10) }

    public init() {}

    /// The hours (whole and the part at the end) the store is open each day.
    public var openHours: Int {
        let span = closes.secondsAfterMidnight - opens.secondsAfterMidnight
        return (span + 3599) / 3600
    }

    /// The people per hour on a weekday (Monday = 0) of simulated day `day` (a rush that day included).
    public func arrivals(weekday: Int, day: Int) -> [Double] {
        let row = perHour.count == 7 ? perHour[weekday] : perHour[0]
        return (0..<openHours).map { hour in
            (hour < row.count ? row[hour] : 0) + (rush.map { $0.day == day && $0.hour == hour ? $0.people : 0 } ?? 0)
        }
    }

    public static func load(path: String) throws(TOMLFileError) -> Scenario {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw TOMLFileError(file: path, key: "", "cannot read the scenario: \(error.localizedDescription)")
        }
        var scenario = try parse(text, file: path)
        scenario.name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        return scenario
    }

    public static func parse(_ text: String, file: String) throws(TOMLFileError) -> Scenario {
        let root = try StrictTable.parse(text, file: file)
        var s = Scenario()
        s.seed = UInt64(try root.int("seed", in: 0...Int.max) ?? Int(s.seed))
        s.days = try root.int("days", in: 1...400) ?? s.days
        s.scoredDays = try root.int("scored_days", in: 1...s.days) ?? min(s.scoredDays, s.days)
        if let store = try root.table("store") {
            s.capacity = try store.int("capacity", in: StoreCapacity.range) ?? s.capacity
            s.averageVisitMinutes = try store.int("average_visit_minutes", in: 1...600) ?? s.averageVisitMinutes
            s.callWindowMinutes = try store.int("call_window_minutes", in: 1...120) ?? s.callWindowMinutes
            s.timeZone = try store.string("time_zone") ?? s.timeZone
            for (key, keyPath) in [("opens", \Scenario.opens), ("closes", \Scenario.closes)] {
                guard let text = try store.string(key) else { continue }
                guard let time = TimeOfDay(closing: text) else { throw store.error(key, "'\(text)' is not HH:MM") }
                s[keyPath: keyPath] = time
            }
            guard s.closes.secondsAfterMidnight > s.opens.secondsAfterMidnight else {
                throw store.error("closes", "must be after opens")
            }
            s.slotMinutes = try store.int("slot_minutes", in: 5...240) ?? s.slotMinutes
            try store.rejectUnknownKeys()
        }
        if let arrivals = try root.table("arrivals") {
            if let rows = try arrivals.numberRows("per_hour") {
                guard rows.count == 1 || rows.count == 7 else {
                    throw arrivals.error("per_hour", "1 row (every day) or 7 rows (Monday first)")
                }
                s.perHour = rows
            }
            s.appShare = try arrivals.share("app_share") ?? s.appShare
            s.bookingShare = try arrivals.share("booking_share") ?? s.bookingShare
            guard s.appShare + s.bookingShare <= 1 else {
                throw arrivals.error("booking_share", "app_share + booking_share must be at most 1")
            }
            s.expectedVisitShare = try arrivals.share("expected_visit_share") ?? s.expectedVisitShare
            s.noShow = try arrivals.share("no_show") ?? s.noShow
            let from = try arrivals.positive("travel_from_minutes") ?? s.travelMinutes.lowerBound
            let to = try arrivals.positive("travel_to_minutes") ?? max(s.travelMinutes.upperBound, from)
            guard from <= to else { throw arrivals.error("travel_to_minutes", "at least travel_from_minutes") }
            s.travelMinutes = from...to
            if let day = try arrivals.int("rush_day", in: 0...(s.days - 1)) {
                let hour = try arrivals.int("rush_hour", in: 0...23) ?? 0
                let people = try arrivals.int("rush_people", in: 1...10_000) ?? 100
                s.rush = (day, hour, Double(people))
            }
            try arrivals.rejectUnknownKeys()
        }
        if let pause = try root.table("pause") {
            s.pause = (
                day: try pause.int("day", in: 0...(s.days - 1)) ?? s.days - 1,
                hour: try pause.int("hour", in: 0...23) ?? 0,
                minute: try pause.int("minute", in: 0...59) ?? 0,
                minutes: try pause.int("minutes", in: LinePause.minutes) ?? 10
            )
            try pause.rejectUnknownKeys()
        }
        if let visit = try root.table("visit") {
            s.distribution = try visit.choice("distribution", Distribution.self) ?? s.distribution
            s.meanVisitMinutes = try visit.positive("mean_minutes") ?? s.meanVisitMinutes
            s.sdVisitMinutes = try visit.positive("sd_minutes") ?? s.sdVisitMinutes
            try visit.rejectUnknownKeys()
        }
        try root.rejectUnknownKeys()
        return s
    }
}

extension StrictTable {
    /// A number 0…1.
    func share(_ key: String) throws(TOMLFileError) -> Double? {
        guard let value = try double(key) else { return nil }
        guard (0...1).contains(value) else { throw error(key, "a share between 0 and 1") }
        return value
    }

    func positive(_ key: String) throws(TOMLFileError) -> Double? {
        guard let value = try double(key) else { return nil }
        guard value > 0, value <= 24 * 60 else { throw error(key, "more than 0 and at most 1440") }
        return value
    }

    /// Rows of numbers (people an hour): each 0…10,000.
    func numberRows(_ key: String) throws(TOMLFileError) -> [[Double]]? {
        guard let rows = try arrays(key) else { return nil }
        return try rows.enumerated().map { (i, row) throws(TOMLFileError) -> [Double] in
            guard row.count <= 24 else { throw error("\(key)[\(i)]", "at most 24 hours") }
            return try row.map { value throws(TOMLFileError) -> Double in
                guard let number = value, (0...10_000).contains(number) else {
                    throw error("\(key)[\(i)]", "numbers of people an hour, 0 to 10000")
                }
                return number
            }
        }
    }
}
