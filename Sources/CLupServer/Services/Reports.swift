import KioskCore

/// A store's day for its manager: the figures (``DayReport``) and every event as CSV, for one local date (today
/// by default, up to a year back). The API and the console read the same.
struct Reports: Sendable {
    let database: any ServerStorage
    let logs: StoreQueues

    static let daysBack: Int64 = 366

    /// A day's events as CSV, and the date it is of.
    struct Export: Sendable {
        var date: String
        var text: String
    }

    /// The store's local day `date` (`YYYY-MM-DD`, today when nil) as a day number.
    func day(_ live: StoreQueues.Live, date: String?) throws(Refusal) -> Int64 {
        let today = StoreClock(live.record.profile).day(logs.clock.now().milliseconds)
        guard let date else { return today }
        guard let day = Slots.day(date), (today - Self.daysBack...today).contains(day) else {
            throw Refusal.invalid("a date as YYYY-MM-DD, today or up to \(Self.daysBack) days back", field: "date")
        }
        return day
    }

    func report(_ store: StoreID, date: String?) async throws -> DayReport {
        let live = try await logs.require(store)
        return try await report(live, day: try day(live, date: date))
    }

    /// The figures of `day`, folded from its events.
    func report(_ live: StoreQueues.Live, day: Int64) async throws -> DayReport {
        report(live, day: day, events: try await events(live, day: day))
    }

    func export(_ store: StoreID, date: String?) async throws -> Export {
        let live = try await logs.require(store)
        return try await export(live, day: try day(live, date: date))
    }

    /// `day`'s events as CSV, each ticket's told and actual wait beside them.
    func export(_ live: StoreQueues.Live, day: Int64) async throws -> Export {
        let events = try await events(live, day: day)
        let waited = report(live, day: day, events: events).waited
        let text = EventCSV.text(events, clock: StoreClock(live.record.profile), live: live, waited: waited)
        return Export(date: StoreClock.date(day), text: text)
    }

    private func events(_ live: StoreQueues.Live, day: Int64) async throws -> [StoreEvent] {
        let clock = StoreClock(live.record.profile)
        return try await database.events(store: live.record.id, from: clock.midnight(day), to: clock.midnight(day + 1))
    }

    private func report(_ live: StoreQueues.Live, day: Int64, events: [StoreEvent]) -> DayReport {
        DayReport(
            date: StoreClock.date(day),
            events: events,
            profile: live.record.profile,
            clock: StoreClock(live.record.profile)
        )
    }
}
