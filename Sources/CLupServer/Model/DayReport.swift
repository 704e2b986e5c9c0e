import KioskCore

/// A store's figures for one local day, folded from that day's events (pure: the caller reads them):
/// tickets that joined the line by hour and by kind, admissions, no-shows, cancellations, refused scans,
/// the most people inside at once, and how right the told waits were — for tickets that joined the line that
/// day told a wait (what the kiosk printed, what the app showed: their `ticketIssued` events keep it) and were
/// called, the told point and range against the actual wait until the call.
struct DayReport: Codable, Sendable {
    var date: String
    /// Tickets that joined the line in each local hour, 0–23: paper at its tear-off, app tickets when
    /// taken, bookings when made.
    var joinedByHour: [Int]
    var paper = 0
    var app = 0
    var bookings = 0
    var admitted = 0
    var noShows = 0
    var cancelled = 0
    var refusedScans = 0
    var peakInside = 0
    /// Times staff corrected the count inside, and people they let in without a ticket (``StaffCount``).
    var countCorrections = 0
    var peopleLetIn = 0
    /// Times staff paused the calls (``LinePause``).
    var pauses = 0
    /// Over the scored tickets: the mean actual wait and the mean wait they were told.
    var meanWaitSeconds: Int?
    var meanEstimateSeconds: Int?
    var estimateAccuracy: EstimateAccuracy?
    /// Each scored ticket's told and actual wait, seconds (the console's plot; not in the JSON).
    var toldAndWaited: [(told: Int, waited: Int)] = []
    /// Each scored ticket's actual wait (the CSV export's; not in the JSON).
    var waited: [TicketID: Duration] = [:]

    enum CodingKeys: String, CodingKey {
        case date, joinedByHour, paper, app, bookings, admitted, noShows, cancelled, refusedScans, peakInside
        case countCorrections, peopleLetIn, pauses
        case meanWaitSeconds, meanEstimateSeconds, estimateAccuracy
    }

    init(date: String, events: [StoreEvent], profile: StoreProfile, clock: StoreClock) {
        self.date = date
        joinedByHour = Array(repeating: 0, count: 24)
        var state = QueueState(capacity: profile.capacity)
        var told: [TicketID: WaitRange] = [:]
        var joined: [TicketID: Timestamp] = [:]
        var admittedAt: [TicketID: Timestamp] = [:]
        for event in events {
            var joining: TicketID?
            switch event.body {
            case .ticketIssued(let ticket, let range):
                told[ticket.id] = range
                switch ticket.kind {
                case .paper: break
                case .app:
                    app += 1
                    joining = ticket.id
                case .booking:
                    bookings += 1
                    count(event.time, clock)
                }
            case .ticketTaken(let id):
                paper += 1
                joining = id
            case .ticketAdmitted(let id, _):
                admitted += 1
                if admittedAt[id] == nil { admittedAt[id] = event.lineTime }
            case .ticketExpired: noShows += 1
            case .ticketCancelled: cancelled += 1
            case .scanRefused: refusedScans += 1
            case .countCorrected: countCorrections += 1
            case .letIn(let people, _, _): peopleLetIn += StaffCount.counted(people: people)
            case .linePaused: pauses += 1
            case .customerExited, .capacityChanged, .dayStarted, .lineResumed, .journeyTold, .unknown: break
            }
            if let joining {
                count(event.lineTime, clock)
                joined[joining] = event.lineTime
            }
            state.apply(event)
            peakInside = max(peakInside, state.inside)
        }
        // Scored: told a wait when it joined, and called (a ticket let in before its call was called then).
        let calls = state.calledAt
        var pairs: [(told: WaitRange, waited: Duration, hour: Int)] = []
        for (id, start) in joined.sorted(by: { $0.value < $1.value }) {
            guard let range = told[id], let called = calls[id] ?? admittedAt[id] else { continue }
            let hour = Int(clock.minuteOfDay(start.milliseconds) / 60)
            pairs.append((range, max(called - start, .zero), hour))
            waited[id] = pairs.last?.waited
        }
        estimateAccuracy = EstimateAccuracy(pairs)
        meanWaitSeconds = Self.meanSeconds(pairs.map(\.waited))
        meanEstimateSeconds = Self.meanSeconds(pairs.map(\.told.point))
        toldAndWaited = pairs.map { (Int($0.told.point.components.seconds), Int($0.waited.components.seconds)) }
    }

    private mutating func count(_ time: Timestamp, _ clock: StoreClock) {
        joinedByHour[Int(clock.minuteOfDay(time.milliseconds) / 60)] += 1
    }

    private static func meanSeconds(_ durations: [Duration]) -> Int? {
        guard !durations.isEmpty else { return nil }
        let total = durations.reduce(Int64(0)) { $0 + $1.components.seconds }
        return Int(total / Int64(durations.count))
    }
}
