import Foundation
import Hummingbird
import KioskCore

/// A store's day for its manager: the figures (``DayReport``) and every event as CSV, for one local date
/// (today by default, up to a year back). The console shows and links the same.
struct ReportRoutes {
    let database: any ServerStorage
    let logs: StoreQueues
    let auth: Authenticator

    static let daysBack: Int64 = 366

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("v1/stores/:store/report") { request, context -> DayReport in
            let store = try context.parameters.require("store", as: UUID.self)
            try await auth.requireManager(request, from: context.remoteAddress, of: store)
            return try await report(store, date: request.uri.queryParameters["date"].map(String.init))
        }
        router.get("v1/stores/:store/export") { request, context -> Response in
            let store = try context.parameters.require("store", as: UUID.self)
            try await auth.requireManager(request, from: context.remoteAddress, of: store)
            return try await export(store, date: request.uri.queryParameters["date"].map(String.init))
        }
    }

    /// The store's local day `date` (`YYYY-MM-DD`, today when nil) as a day number, or a 400.
    func day(_ live: StoreQueues.Live, date: String?) throws(Refusal) -> Int64 {
        let today = StoreClock(live.record.profile).day(logs.clock.now().milliseconds)
        guard let date else { return today }
        guard let day = Slots.day(date), (today - Self.daysBack...today).contains(day) else {
            throw Refusal.invalid("a date as YYYY-MM-DD, today or up to \(Self.daysBack) days back", field: "date")
        }
        return day
    }

    func events(_ live: StoreQueues.Live, day: Int64) async throws(Refusal) -> [StoreEvent] {
        let clock = StoreClock(live.record.profile)
        return try await StoreOffice.storingAsync {
            try await database.events(store: live.record.id, from: clock.midnight(day), to: clock.midnight(day + 1))
        }
    }

    func report(_ store: StoreID, date: String?) async throws(Refusal) -> DayReport {
        let live = try await logs.require(store)
        let day = try day(live, date: date)
        return report(live, day: day, events: try await events(live, day: day))
    }

    /// The figures of `day`, folded from its `events`.
    func report(_ live: StoreQueues.Live, day: Int64, events: [StoreEvent]) -> DayReport {
        DayReport(
            date: StoreClock.date(day),
            events: events,
            profile: live.record.profile,
            clock: StoreClock(live.record.profile)
        )
    }

    func export(_ store: StoreID, date: String?) async throws(Refusal) -> Response {
        let live = try await logs.require(store)
        let day = try day(live, date: date)
        let events = try await events(live, day: day)
        let waited = report(live, day: day, events: events).waited
        let text = EventCSV.text(events, clock: StoreClock(live.record.profile), live: live, waited: waited)
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8",
                .contentDisposition: "attachment; filename=\"clup-\(StoreClock.date(day))-events.csv\"",
                .cacheControl: "no-store",
            ],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }
}
