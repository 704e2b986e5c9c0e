import Foundation
import TestSupport
import Testing

@testable import KioskCore

/// The wait estimate: never negative, later for a later place, the range around the point; a store that just
/// filled frees no place for a while; before opening it counts from the opening; bookings with a short stay and
/// no-shows move it the way they should; the model learns a store's visits from a few days of anonymous exits.
@Suite struct WaitEstimatorTests: TicketFixtures {
    let store = UUID()
    let signer = TicketSigner()
    /// Tuesday 2026-11-24, 10:00 UTC.
    let base = BusinessDay(year: 2026, month: 11, day: 24).instant(secondsAfterMidnight: 10 * 3600, zone: .utc)
    let estimator = WaitEstimator(model: .prior(averageVisit: .seconds(20 * 60)), callWindow: .seconds(600))

    func minutes(_ m: Double) -> Timestamp { base + .minutes(m) }

    /// A store of `capacity` whose day started at 07:00, with people admitted at `admitted` (minutes from 10:00),
    /// still inside, and `waiting` tickets in line.
    func store(capacity: Int, admitted: [Double], waiting: Int, kind: TicketKind = .paper) -> QueueState {
        var queue = QueueState(capacity: capacity)
        let calendar = StoreCalendar(hours: .openAllDay, zone: .utc)
        queue.apply(calendar.dayStarted(BusinessDay(year: 2026, month: 11, day: 24), store: store, device: "d"))
        for (n, at) in admitted.sorted().enumerated() {
            let t = ticket(n + 1, kind: .app, at: minutes(at - 1))
            queue.apply(event(.ticketIssued(t), at: t.issuedAt))
            queue.apply(event(.ticketAdmitted(t.id, door: "door"), at: minutes(at)))
        }
        for n in 0..<waiting {
            let t = ticket(500 + n, kind: kind, at: minutes(-0.5 + Double(n) / 1000))
            queue.apply(event(.ticketIssued(t, told: nil), at: t.issuedAt))
            if kind == .paper { queue.apply(event(.ticketTaken(t.id), at: t.issuedAt)) }
        }
        return queue
    }

    @Test(arguments: 0..<20) func laterPlacesWaitLongerNeverNegativeAndTheRangeHoldsThePoint(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let capacity = Int.random(in: 1...60, using: &random)
        let admitted = (0..<capacity).map { _ in -Double.random(in: 0...90, using: &random) }
        let queue = store(capacity: capacity, admitted: admitted, waiting: Int.random(in: 0...80, using: &random))
        let told = estimator.schedule(through: queue.waitingCount + 5, in: queue, at: base)
        #expect(told.count == queue.waitingCount + 6)
        for (n, range) in told.enumerated() {
            #expect(range.point >= .zero && range.low <= range.point && range.point <= range.high, "place \(n)")
            if n > 0 { #expect(range.point >= told[n - 1].point, "place \(n) before place \(n - 1)") }
        }
    }

    /// A store full for long, with exponential visits (a corner shop's: a fifth of them end within the first
    /// couple of minutes) and a line of 480: its places turn eleven times before the last is called, and the
    /// roll moves it at capacity ÷ visit all the way — a share of a place lost at each turn would compound.
    @Test func aLongLineMovesAtCapacityOverVisitToItsEnd() {
        let corner = WaitEstimator(
            model: WaitModel(visit: VisitLength(meanMinutes: 11, cv: 1, family: .gamma), paperDelay: [1]),
            callWindow: .seconds(600)
        )
        let queue = store(capacity: 44, admitted: (0..<44).map { -Double($0) * 0.25 }, waiting: 480)
        for position in [40, 120, 240, 479] {
            let wait = corner.wait(position: position, in: queue, at: base).point.minutes
            let pace = Double(position + 1) * 11 / 44
            #expect(abs(wait - pace) < 0.06 * pace + 1, "place \(position): \(wait) min, at capacity ÷ visit \(pace)")
        }
    }

    /// A long line told by the model alone (no scored tickets yet: a new store's first busy day, a quiet store's
    /// rush) allows for its pace being a few per cent off: the range grows with the wait, not only with the
    /// count's spread (which alone held 42 % of a drawn new store's first busy day, told 60–90 minutes).
    @Test func aLongLineToldByTheModelAloneAllowsForItsPace() {
        let corner = WaitEstimator(
            model: WaitModel(visit: VisitLength(meanMinutes: 11, cv: 1, family: .gamma), paperDelay: [1]),
            callWindow: .seconds(600)
        )
        let queue = store(capacity: 44, admitted: (0..<44).map { -Double($0) * 0.25 }, waiting: 480)
        for position in [240, 479] {
            let told = corner.wait(position: position, in: queue, at: base)
            let half = (told.high - told.low).minutes / 2
            let pace = WaitEstimator.rangeZ * WaitEstimator.paceError * told.point.minutes
            #expect(half >= 0.95 * pace, "place \(position): \(told), ± \(half) min against \(pace)")
            #expect(told.low < told.point && told.point < told.high)
        }
    }

    /// What a server keeps between requests: a roll of a line of 300 app tickets, asked about places (the place
    /// after the last too: a ticket is told it before it joins), then gone on over 40 tickets taken at the line's
    /// end, tells every place what a roll made anew tells — and a place asked alone (a ticket's page) is called
    /// when the whole line's roll calls it.
    @Test func aKeptRollGoesOnOverTicketsJoiningTheEnd() {
        let queue = store(capacity: 20, admitted: (0..<20).map { -Double($0) * 1.5 }, waiting: 300, kind: .app)
        var roll = estimator.roll(queue, at: base)
        for position in [0, 150, 300] { _ = roll.wait(position: position) }
        let (newer, joined) = joining(40, to: queue)
        let extended = roll.extend(to: newer, joined: joined)
        #expect(extended)
        let fresh = estimator.schedule(through: 339, in: newer, at: base)
        for position in [0, 75, 150, 299, 300, 320, 339] {
            let kept = roll.wait(position: position)
            #expect(kept == fresh[position], "place \(position)")
            let alone = estimator.wait(position: position, in: newer, at: base)
            #expect(alone.point == fresh[position].point, "place \(position) asked alone")
        }
        #expect(fresh[339].point > fresh[299].point)
    }

    /// `queue` with `count` app tickets taken at its line's end, and their ids.
    func joining(_ count: Int, to queue: QueueState) -> (QueueState, [TicketID]) {
        var newer = queue
        var joined: [TicketID] = []
        for n in 0..<count {
            let t = ticket(900 + n, kind: .app, at: minutes(-0.2 + Double(n) / 1000))
            newer.apply(event(.ticketIssued(t, told: nil), at: t.issuedAt))
            joined.append(t.id)
        }
        return (newer, joined)
    }

    /// 20 people came in together a minute ago (the store filled at once): the first place frees when the
    /// shortest of their visits ends, minutes away — not in a twentieth of a visit, as a pace would say. Full
    /// since long ago, places free at about capacity ÷ visit.
    @Test func aStoreThatJustFilledFreesNoPlaceForAWhile() {
        let justFilled = store(capacity: 20, admitted: Array(repeating: -1, count: 20), waiting: 1)
        let wait = estimator.wait(position: 0, in: justFilled, at: base).point
        #expect(wait > .seconds(5 * 60) && wait < .seconds(12 * 60), "\(wait)")
        let steady = store(capacity: 20, admitted: (0..<20).map { -Double($0) * 3 }, waiting: 1)
        let sooner = estimator.wait(position: 0, in: steady, at: base).point
        #expect(sooner < .seconds(3 * 60), "\(sooner)")
        // Ten places ahead in a steady store: about ten places' pace (20 min ÷ 20 places a place).
        let line = store(capacity: 20, admitted: (0..<20).map { -Double($0) * 3 }, waiting: 10)
        let tenth = estimator.wait(position: 9, in: line, at: base).point
        #expect(tenth > .seconds(6 * 60) && tenth < .seconds(16 * 60), "\(tenth)")
    }

    @Test func beforeOpeningTheWaitCountsFromTheOpening() {
        var queue = QueueState(capacity: 2)
        let calendar = StoreCalendar(
            hours: try! .daily(open: TimeOfDay(hour: 11, minute: 0), close: TimeOfDay(hour: 21, minute: 0)),
            zone: .utc
        )
        queue.apply(calendar.dayStarted(BusinessDay(year: 2026, month: 11, day: 24), store: store, device: "d"))
        for n in 0..<3 {
            let t = ticket(n + 1, kind: .app, at: minutes(Double(n)))
            queue.apply(event(.ticketIssued(t, told: nil), at: t.issuedAt))
        }
        let told = estimator.schedule(through: 2, in: queue, at: minutes(10))
        #expect(told[0].point == .seconds(50 * 60) && told[1].point == .seconds(50 * 60), "called at 11:00")
        #expect(told[2].point > .seconds(51 * 60))
    }

    /// The line ahead is all app tickets: the more of them never come, the sooner a place behind is called
    /// (a no-show holds a place for the call window only).
    @Test func noShowsAheadShortenTheWait() {
        let queue = store(capacity: 10, admitted: (0..<10).map { -Double($0) * 2 }, waiting: 15, kind: .app)
        var model = WaitModel.prior(averageVisit: .seconds(20 * 60))
        model.setNoShow(0.02)
        let few = WaitEstimator(model: model, callWindow: .seconds(600)).wait(position: 15, in: queue, at: base)
        model.setNoShow(0.4)
        let many = WaitEstimator(model: model, callWindow: .seconds(600)).wait(position: 15, in: queue, at: base)
        #expect(many.point < few.point, "\(many.point) ≥ \(few.point)")
    }

    /// A booking whose slot starts in five minutes takes a place ahead of the line; one that said it stays 5
    /// minutes gives it back sooner than one that stays the average 20 (R20).
    @Test func bookingsTakeTheirPlaceAndTheirStayCounts() {
        func waitBehind(bookingMinutes: Int?) -> Duration {
            var queue = store(capacity: 3, admitted: [-5, -10, -15], waiting: 3)
            let slot = BookingSlot(start: minutes(5), end: minutes(20), expectedVisitMinutes: bookingMinutes)
            let booking = ticket(900, kind: .booking, at: minutes(-30), slot: slot)
            queue.apply(event(.ticketIssued(booking, told: nil), at: booking.issuedAt))
            return estimator.wait(position: 3, in: queue, at: base).point
        }
        let quiet = store(capacity: 3, admitted: [-5, -10, -15], waiting: 3)
        let none = estimator.wait(position: 3, in: quiet, at: base).point
        let short = waitBehind(bookingMinutes: 5)
        let average = waitBehind(bookingMinutes: nil)
        #expect(none < short && short < average, "\(none) \(short) \(average)")
    }

    /// A place free now calls the next ticket at once, however many are called ahead of it — unless a booking
    /// whose slot starts within the roll's first step claims that place first.
    @Test func aFreePlaceCallsAtOnceUnlessABookingClaimsIt() {
        let roomy = store(capacity: 9_000, admitted: [-5, -10], waiting: 3)
        #expect(estimator.schedule(through: 3, in: roomy, at: base) == Array(repeating: .zero, count: 4))
        var claimed = store(capacity: 3, admitted: [-5, -10], waiting: 0)
        let slot = BookingSlot(start: minutes(0.2), end: minutes(15), expectedVisitMinutes: nil)
        let booking = ticket(900, kind: .booking, at: minutes(-30), slot: slot)
        claimed.apply(event(.ticketIssued(booking, told: nil), at: booking.issuedAt))
        #expect(estimator.wait(position: 0, in: claimed, at: base).point > .zero)
        let unclaimed = store(capacity: 3, admitted: [-5, -10], waiting: 0)
        #expect(estimator.wait(position: 0, in: unclaimed, at: base) == .zero)
    }

    /// App holders who waited long enough to plan their trip come about when called; one called soon after
    /// taking its ticket comes late. A line that has waited long is told a shorter wait behind it.
    @Test func aLineThatPlannedItsTripHoldsPlacesLess() {
        func line(joinedAt: Double) -> QueueState {
            var queue = store(capacity: 2, admitted: [-5, -10], waiting: 0)
            for n in 0..<4 {
                let t = ticket(600 + n, kind: .app, at: minutes(joinedAt + Double(n) / 1000))
                queue.apply(event(.ticketIssued(t, told: nil), at: t.issuedAt))
            }
            return queue
        }
        var model = WaitModel.prior(averageVisit: .seconds(20 * 60))
        model.appDelay = Array(repeating: 0, count: 16) + [1]  // 8 minutes late
        model.plannedAppDelay = [1]  // at the door when called
        let estimator = WaitEstimator(model: model, callWindow: .seconds(600))
        let fresh = estimator.wait(position: 4, in: line(joinedAt: -0.5), at: base).point
        let planned = estimator.wait(position: 4, in: line(joinedAt: -40), at: base).point
        #expect(planned + .minutes(1) < fresh, "planned \(planned), fresh \(fresh)")
    }

    @Test func theToldWaitRoundTripsInItsEvent() throws {
        let t = ticket(1, kind: .app, at: base)
        let told = WaitRange(point: .seconds(600), low: .seconds(420), high: .seconds(900))
        let data = try JSONEncoder().encode(StoreEvent.Body.ticketIssued(t, told: told))
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""told":{"#) && text.contains(#""seconds":600"#), "\(text)")
        #expect(try JSONDecoder().decode(StoreEvent.Body.self, from: data) == .ticketIssued(t, told: told))
        // An older device's event has none.
        let old = #"{"type":"ticketIssued","ticket":\#(String(decoding: try JSONEncoder().encode(t), as: UTF8.self))}"#
        #expect(try JSONDecoder().decode(StoreEvent.Body.self, from: Data(old.utf8)) == .ticketIssued(t, told: nil))
    }
}

/// The model learns a store's visits from admissions and anonymous exits alone: a few days are enough, and
/// nothing is divided by weeks the store does not have.
@Suite struct WaitModelLearningTests: TicketFixtures {
    let store = UUID()
    let signer = TicketSigner()

    /// `days` days of a store open 08:00–20:00 UTC with an admission every `every` minutes whose visits are
    /// log-normal (`mean`, `sd` minutes), or exponential (`sd` nil); each visit's exit is anonymous.
    func traffic(days: Int, every: Double, mean: Double, sd: Double?, seed: UInt64) -> StoreTraffic {
        var random = SplitMix64(seed: seed)
        var events: [StoreEvent] = []
        let calendar = StoreCalendar(
            hours: try! .daily(open: TimeOfDay(hour: 8, minute: 0), close: TimeOfDay(hour: 20, minute: 0)),
            zone: .utc
        )
        let first = BusinessDay(year: 2026, month: 11, day: 2)
        var n = 0
        for d in 0..<Int64(days) {
            let day = BusinessDay(number: first.number + d)
            events.append(calendar.dayStarted(day, store: store, device: "d"))
            var t = calendar.opens(day)
            while t < calendar.closes(day) {
                n += 1
                let ticket = ticket(n, kind: .app, at: t)
                events.append(event(.ticketIssued(ticket), at: t))
                events.append(event(.ticketAdmitted(ticket.id, door: "door"), at: t + .seconds(1)))
                let visit: Double
                if let sd {
                    let sigma2 = log(1 + sd * sd / (mean * mean))
                    let z =
                        (-2 * log(Double.random(in: 0.0001..<1, using: &random))).squareRoot()
                        * cos(2 * Double.pi * Double.random(in: 0..<1, using: &random))
                    visit = exp(log(mean) - sigma2 / 2 + sigma2.squareRoot() * z)
                } else {
                    visit = -mean * log(Double.random(in: 0.000001..<1, using: &random))
                }
                events.append(event(.customerExited, at: t + .minutes(visit)))
                t = t + .minutes(every * Double.random(in: 0.5...1.5, using: &random))
            }
        }
        events.sort { $0.time < $1.time }
        return StoreTraffic.of(events, capacity: 10_000)
    }

    @Test(arguments: [(28.0, 14.0), (10.0, 8.0), (45.0, 15.0)])
    func theVisitIsLearntFromAnonymousExits(mean: Double, sd: Double) {
        let traffic = traffic(days: 5, every: 1.5, mean: mean, sd: sd, seed: 3)
        let prior = WaitModel.prior(averageVisit: .seconds(20 * 60))
        let model = WaitModel.learn(traffic, prior: prior, now: Timestamp(milliseconds: 1_800_000_000_000))
        #expect(abs(model.visit.meanMinutes - mean) < mean * 0.1, "mean \(model.visit.meanMinutes) for \(mean)")
        #expect(abs(model.visit.cv - sd / mean) < 0.15, "cv \(model.visit.cv) for \(sd / mean)")
        #expect(model.days == 5)
        // Whichever family fits, its visits are the true ones: the CDFs within 0.05 at every minute (a log-normal
        // of small spread and a gamma are near alike).
        let truth = VisitLength(meanMinutes: mean, cv: sd / mean, family: .logNormal)
        let distance = (1...240).map { abs(model.visit.cdf(minutes: Double($0)) - truth.cdf(minutes: Double($0))) }
            .max()
        #expect((distance ?? 1) < 0.05, "\(model.visit) against \(truth)")
    }

    /// A corner shop's visits are exponential (someone inside for long is as likely to leave as someone just
    /// in): the fit says gamma of shape about 1, not a log-normal that keeps the long-inside in.
    @Test func exponentialVisitsAreLearntAsSuch() {
        let traffic = traffic(days: 5, every: 1.5, mean: 12, sd: nil, seed: 5)
        let prior = WaitModel.prior(averageVisit: .seconds(12 * 60))
        let model = WaitModel.learn(traffic, prior: prior, now: Timestamp(milliseconds: 1_800_000_000_000))
        #expect(model.visit.family == .gamma)
        #expect(abs(model.visit.meanMinutes - 12) < 1.2, "mean \(model.visit.meanMinutes)")
        #expect(abs(model.visit.cv - 1) < 0.2, "cv \(model.visit.cv)")
    }

    /// The gamma's CDF against closed forms: shape 1 (exponential), 2 (Erlang) and ½ (erf of the root).
    @Test(arguments: [0.05, 0.5, 1, 2.5, 7, 30])
    func theGammaCDFMatchesClosedForms(x: Double) {
        #expect(abs(VisitLength.regularizedGammaP(1, x) - (1 - exp(-x))) < 1e-10)
        #expect(abs(VisitLength.regularizedGammaP(2, x) - (1 - exp(-x) * (1 + x))) < 1e-10)
        #expect(abs(VisitLength.regularizedGammaP(0.5, x) - erf(x.squareRoot())) < 1e-10)
        let visit = VisitLength(meanMinutes: 12, cv: 1, family: .gamma)
        #expect(abs(visit.cdf(minutes: x * 12) - (1 - exp(-x))) < 1e-10)
    }

    /// A called app ticket's delay to the door is learnt apart when it had waited ``WaitModel/plannedWait`` in
    /// line: A, called at once, comes 8 minutes later; B, called 19 minutes after it joined, comes at once.
    @Test func delaysAfterALongWaitAreLearntApart() throws {
        var queue = QueueState(capacity: 1)
        var traffic = StoreTraffic()
        let day = BusinessDay(year: 2026, month: 11, day: 24)
        let start = day.instant(secondsAfterMidnight: 10 * 3600, zone: .utc)
        func take(_ e: StoreEvent) {
            traffic.observe(e, before: queue)
            queue.apply(e)
        }
        func apply(_ body: StoreEvent.Body, at minute: Double) { take(event(body, at: start + .minutes(minute))) }
        take(StoreCalendar(hours: .openAllDay, zone: .utc).dayStarted(day, store: store, device: "d"))
        let a = ticket(1, kind: .app, at: start)
        let b = ticket(2, kind: .app, at: start + .minutes(1))
        apply(.ticketIssued(a, told: nil), at: 0)
        apply(.ticketIssued(b, told: nil), at: 1)
        apply(.ticketAdmitted(a.id, door: "door"), at: 8)
        apply(.customerExited, at: 20)
        apply(.ticketAdmitted(b.id, door: "door"), at: 20.25)
        let counted = try #require(traffic.days.values.first)
        #expect(counted.appDelays == Array(repeating: 0, count: 16) + [1], "\(counted.appDelays)")
        #expect(counted.plannedAppDelays == [1], "\(counted.plannedAppDelays)")
        let model = WaitModel.learn(traffic, prior: .prior(averageVisit: .seconds(600)), now: start + .minutes(30))
        func mean(_ shares: [Double]) -> Double { shares.enumerated().reduce(0) { $0 + Double($1.0) * $1.1 } }
        #expect(mean(model.plannedAppDelay) < mean(model.appDelay))
    }

    /// A store whose app holders live farther than the call window lasts: its app tickets called at once all
    /// expire, while its bookings — whose holders plan for the slot — come. The bookings' no-show share is
    /// learnt apart (it rolls their places), not the store's 10 in 12.
    @Test func bookingsNoShowsAreLearntApartFromAppTickets() throws {
        var queue = QueueState(capacity: 50)
        var traffic = StoreTraffic()
        let day = BusinessDay(year: 2026, month: 11, day: 24)
        let start = day.instant(secondsAfterMidnight: 10 * 3600, zone: .utc)
        func apply(_ body: StoreEvent.Body, at minute: Double) {
            let e = event(body, at: start + .minutes(minute))
            traffic.observe(e, before: queue)
            queue.apply(e)
        }
        let opened = StoreCalendar(hours: .openAllDay, zone: .utc).dayStarted(day, store: store, device: "d")
        traffic.observe(opened, before: queue)
        queue.apply(opened)
        for n in 0..<100 {
            let app = ticket(n + 1, kind: .app, at: start + .minutes(Double(n)))
            apply(.ticketIssued(app, told: nil), at: Double(n))
            apply(.ticketExpired(app.id), at: Double(n) + 10)
        }
        for n in 0..<20 {
            let slotStart = start + .minutes(Double(n) * 5)
            let booking = ticket(
                200 + n,
                kind: .booking,
                at: start - .minutes(60),
                slot: BookingSlot(start: slotStart, end: slotStart + .minutes(15))
            )
            apply(.ticketIssued(booking, told: nil), at: -60)
            apply(.ticketAdmitted(booking.id, door: "door"), at: Double(n) * 5 + 1)
        }
        let model = WaitModel.learn(traffic, prior: .prior(averageVisit: .seconds(600)), now: start + .minutes(200))
        #expect(model.noShow > 0.7, "\(model.noShow)")
        #expect(model.bookingNoShow < 0.06, "\(model.bookingNoShow)")
        let json = try JSONEncoder().encode(model)
        #expect(try JSONDecoder().decode(WaitModel.self, from: json).bookingNoShow == model.bookingNoShow)
    }

    /// A model from a server of the previous version has no planned delay: its app delay serves for both.
    @Test func aModelWithoutPlannedDelayUsesItsAppDelay() throws {
        let model = WaitModel(visit: VisitLength(meanMinutes: 12), appDelay: [0.5, 0.5])
        var json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(model)) as! [String: Any]
        #expect(json["plannedAppDelay"] != nil)
        json["plannedAppDelay"] = nil
        let old = try JSONDecoder().decode(WaitModel.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(old.plannedAppDelay == [0.5, 0.5] && old == model)
    }

    /// A model from a server before visit families decodes as log-normal; a gamma one keeps its family.
    @Test func aVisitWithoutFamilyIsLogNormal() throws {
        let old = try JSONDecoder().decode(VisitLength.self, from: Data(#"{"meanMinutes":20,"cv":0.5}"#.utf8))
        #expect(old == VisitLength(meanMinutes: 20, cv: 0.5, family: .logNormal))
        let gamma = VisitLength(meanMinutes: 12, cv: 1, family: .gamma)
        #expect(try JSONDecoder().decode(VisitLength.self, from: JSONEncoder().encode(gamma)) == gamma)
    }
}
