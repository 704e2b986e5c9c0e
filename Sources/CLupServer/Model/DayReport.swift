import Hummingbird
import KioskCore

/// A store's figures for one local day, folded from that day's events (pure: the caller reads them):
/// tickets that joined the line by hour and by kind, admissions, no-shows, cancellations, refused scans,
/// the most people inside at once, and for walk-in tickets (paper and app) admitted that day the mean wait
/// they had against the mean wait they were told when they joined (the fallback estimate: average visit ×
/// people ahead ÷ capacity, from the line as it was then).
struct DayReport: ResponseCodable, Equatable {
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
    var meanWaitSeconds: Int?
    var meanEstimateSeconds: Int?

    init(date: String, events: [StoreEvent], profile: StoreProfile, clock: StoreClock) {
        self.date = date
        joinedByHour = Array(repeating: 0, count: 24)
        var state = QueueState(capacity: profile.capacity)
        var joined: [TicketID: (time: Timestamp, estimate: Duration)] = [:]
        var waits: [Duration] = []
        var estimates: [Duration] = []
        for event in events {
            var joining: TicketID?
            switch event.body {
            case .ticketIssued(let ticket, _):
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
                if let start = joined[id] {
                    waits.append(event.lineTime - start.time)
                    estimates.append(start.estimate)
                }
            case .ticketExpired: noShows += 1
            case .ticketCancelled: cancelled += 1
            case .scanRefused: refusedScans += 1
            case .customerExited, .capacityChanged, .dayStarted: break
            }
            if let joining {
                count(event.lineTime, clock)
                let estimate = WaitEstimate(
                    averageVisit: .seconds(profile.averageVisitMinutes * 60),
                    capacity: state.capacity
                )
                let ahead = state.lineLength(at: event.lineTime)
                joined[joining] = (event.lineTime, estimate.wait(peopleAhead: ahead, freePlaces: state.freePlaces))
            }
            state.apply(event)
            peakInside = max(peakInside, state.inside)
        }
        meanWaitSeconds = Self.meanSeconds(waits)
        meanEstimateSeconds = Self.meanSeconds(estimates)
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
