import CLupServer
import Foundation
import KioskCore
import Logging
import ServiceSupport

/// Store days on a virtual clock through clup-server's own code: the store is registered, its log kept and
/// folded, app tickets and bookings issued and told their wait, no-shows expired, days started and the wait model
/// learnt by `StoreQueues` on SQLite — exactly what the server runs, at the pace of the CPU. The simulation plays
/// the world around it: shoppers who tear paper tickets at the door, take app tickets at home and leave when
/// their wait falls below their travel time, book slots (some saying how long they will stay), never come, and
/// stay as long as the scenario's visits say; the door lets in whoever is called and at the door.
///
/// Every ticket of the scored days is scored: what each estimator said when it joined the line against when it
/// was called (``Score``).
public final class Simulation {
    public let scenario: Scenario
    var random: SimRandom
    let time: WallClock.Manual
    let database: SQLiteStorage
    public let logs: StoreQueues
    let directory: String
    let logger: Logger
    var store: StoreID
    let policy: AdmissionPolicy
    var calendar: StoreCalendar
    var agenda = Agenda()
    /// Everyone who has a ticket, by ticket.
    var shoppers: [TicketID: Shopper] = [:]
    /// Tickets whose holder is at the door, not let in yet.
    var atDoor: Set<TicketID> = []
    /// App holders still at home, watching their wait.
    var atHome: Set<TicketID> = []
    /// Who is inside, and since when (the truth the oracle starts from; the log knows only counts).
    var inside: [TicketID: Timestamp] = [:]
    /// Paper ticket numbers of the day.
    var paperNumbers: [Int64: Int] = [:]
    /// Bookings per slot start.
    var booked: [Timestamp: Int] = [:]
    /// The baseline estimator the server shipped before, refreshed as the server refreshed it.
    var previous: TrafficModel?
    var admissions: [Timestamp] = []
    public internal(set) var score = Score()
    /// How app holders follow their ticket, and what it did at the door; its own random draws, so that every
    /// policy meets the same shoppers.
    public let follow: FollowPolicy
    var followRandom: SimRandom
    var followTally = FollowTally()
    /// Whether every estimator is scored (the oracle is most of a run's time): off for comparing policies.
    let scoresEstimators: Bool
    var lastTime: Timestamp
    let start: Timestamp
    let scoredFrom: Timestamp
    let end: Timestamp

    static let kiosk: DeviceID = "sim-kiosk"

    public init(
        _ scenario: Scenario,
        follow: FollowPolicy = .oracleJourney,
        scoresEstimators: Bool = true,
        logger: Logger
    ) async throws {
        self.scenario = scenario
        self.logger = logger
        self.follow = follow
        self.scoresEstimators = scoresEstimators
        random = SimRandom(seed: scenario.seed)
        followRandom = SimRandom(seed: scenario.seed ^ 0x5EED_F011_0000_0049)
        let zone = try TimeZoneDirectory.system.zone(named: scenario.timeZone)
        calendar = StoreCalendar(
            hours: try .daily(open: scenario.opens, close: scenario.closes),
            zone: zone
        )
        // Monday 5 January 2026, midnight on the store's clock.
        let first = BusinessDay(year: 2026, month: 1, day: 5)
        start = first.instant(secondsAfterMidnight: 0, zone: zone)
        scoredFrom = BusinessDay(number: first.number + Int64(scenario.days - scenario.scoredDays))
            .instant(secondsAfterMidnight: 0, zone: zone)
        end = BusinessDay(number: first.number + Int64(scenario.days)).instant(secondsAfterMidnight: 0, zone: zone)
        lastTime = start
        time = WallClock.Manual(start)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("clup-sim-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        database = try SQLiteStorage(path: "\(directory)/clup.sqlite", clock: .manual(time))
        policy = AdmissionPolicy(callWindow: .seconds(scenario.callWindowMinutes * 60))
        logs = try await StoreQueues(database: database, callWindow: policy.callWindow)
        store = UUID()
        store = try await register()
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The store as its system manager registers it (hours, capacity, what the manager thinks a visit lasts).
    func register() async throws -> StoreID {
        let hours = StoreProfile.Hours(open: scenario.opens.description, close: scenario.closes.description)
        let profile = StoreProfile(
            name: "Simulated Market",
            address: "1 Virtual Street",
            location: .init(latitude: 45.46, longitude: 9.19),
            capacity: scenario.capacity,
            openingHours: Array(repeating: hours, count: 7),
            timeZone: scenario.timeZone,
            averageVisitMinutes: scenario.averageVisitMinutes,
            slotMinutes: scenario.slotMinutes,
            slotSize: scenario.slotSize
        )
        let record = try database.register(
            profile,
            manager: "sim",
            passwordHash: try PasswordHash(password: "simulated store manager"),
            at: start
        )
        logs.add(record)
        return record.id
    }

    /// Runs every day of the scenario; the score of its scored days.
    public func run() async throws -> Score {
        for day in 0..<scenario.days { planDay(day) }
        agenda.add(start, .tick)
        agenda.add(start, .refresh)
        agenda.add(start, .watch)
        while let (at, action) = agenda.next(), at < end {
            if at >= scoredFrom, live.state.isOpen(at: at) {
                let minutes = (at - lastTime).minutes
                score.openMinutes += minutes
                score.doorPersonMinutes += Double(atDoor.count) * minutes
            }
            lastTime = at
            time.set(at)
            try await perform(action, at: at)
        }
        score.close()
        return score
    }

    var live: StoreQueues.Live { logs.store(store)! }

    /// The wait model the server learnt.
    public var model: WaitModel? { live.model }

    func perform(_ action: Agenda.Action, at now: Timestamp) async throws {
        switch action {
        case .tick:
            await logs.startDueDays(at: now, logger: logger)
            await logs.expireNoShows(at: now, policy: policy, logger: logger)
            try await letIn(at: now)
            settle(at: now)
            tallyDoor(at: now, seconds: 15)
            agenda.add(now + .seconds(15), .tick)
        case .refresh:
            try await logs.refreshModels(at: now)
            previous = TrafficModel(admissions: admissions, days: 28, zone: calendar.zone, now: now)
            agenda.add(now + .seconds(30 * 60), .refresh)
        case .watch:
            watch(at: now)
            agenda.add(now + .seconds(60), .watch)
        case .arrive(let plan):
            try await arrive(plan, at: now)
        case .book(let plan):
            try await book(plan, at: now)
        case .pause(let minutes):
            let until = LinePause.until(minutes: minutes, from: now)
            try await logs.recordStaff(.linePaused(reason: "restock", until: until, by: "sim"), store: store, at: now)
        case .reachDoor(let ticket):
            reachDoor(ticket, at: now)
            try await letIn(at: now)
        case .leave(let ticket):
            inside[ticket] = nil
            try await append([.customerExited], at: now)
            try await letIn(at: now)
        }
    }

    func append(_ bodies: [StoreEvent.Body], at now: Timestamp) async throws {
        let events = bodies.map { StoreEvent.new($0, store: store, device: Self.kiosk, at: now) }
        _ = try await logs.append(events, store: store)
    }
}
