import Foundation
import Testing

@testable import KioskCore

/// What the estimator learns from a store's own log beyond its visits (issue 44): app holders who never come,
/// by how long they had waited when called (one told a short wait who lives far cannot make it; one who waited
/// long timed the trip), and the told range from the store's own scored tickets.
@Suite struct StoreOwnErrorsTests: TicketFixtures {
    let store = UUID()
    let signer = TicketSigner()

    func ms(_ n: Int64) -> Timestamp { Timestamp(milliseconds: n) }

    /// An app ticket the server issues at `time`.
    func appTicket(_ number: Int, at time: Timestamp) -> Ticket {
        Ticket(
            id: .v7(at: time),
            store: store,
            kind: .app,
            code: TicketCode(prefix: "V", number: number),
            issuedAt: time,
            issuer: ServerIssue.device
        )
    }

    /// App tickets called at once expire (their holders live farther than the call window lasts); those that
    /// waited 40 minutes come: the model tells the two apart, where one share said about half of both.
    @Test func noShowsAreLearntByTheWaitWhenCalled() {
        var traffic = StoreTraffic()
        var state = QueueState(capacity: 1)
        var now = Timestamp(milliseconds: 1_800_000_000_000)
        func apply(_ event: StoreEvent) {
            traffic.observe(event, before: state)
            state.apply(event)
        }
        apply(StoreEvent.dayStarted(BusinessDay(number: 20_833), store: store, device: "d", at: now))
        now = now + .seconds(60)
        for n in 0..<60 {
            // One waits 40 minutes behind a visitor, then comes; the next is called at once and never comes.
            let long = appTicket(2 * n + 1, at: now)
            let paper = ticket(n + 1, at: now)
            apply(event(.ticketIssued(paper), at: now))
            apply(event(.ticketTaken(paper.id), at: now))
            apply(event(.ticketAdmitted(paper.id, door: "d"), at: now))
            apply(StoreEvent.new(.ticketIssued(long), store: store, device: ServerIssue.device, at: now))
            now = now + .seconds(40 * 60)
            apply(event(.customerExited, at: now))
            apply(event(.ticketAdmitted(long.id, door: "d"), at: now + .seconds(30)))
            now = now + .seconds(5 * 60)
            apply(event(.customerExited, at: now))
            let short = appTicket(2 * n + 2, at: now)
            apply(StoreEvent.new(.ticketIssued(short), store: store, device: ServerIssue.device, at: now))
            now = now + .seconds(11 * 60)
            apply(StoreEvent.new(.ticketExpired(short.id), store: store, device: ServerIssue.device, at: now))
            // Every other one of those holders does come, after the window: the door refuses and logs it.
            if n.isMultiple(of: 2) {
                apply(event(.scanRefused(reason: "expired", ticket: short.id, door: "d"), at: now + .seconds(90)))
            }
        }
        let prior = WaitModel.prior(averageVisit: .minutes(20))
        let model = WaitModel.learn(traffic, prior: prior, now: now)
        #expect((0.4...0.5).contains(model.noShow), "overall \(model.noShow) (half, blended with the prior 10 %)")
        // Of the places left unused, half were holders who came too late (30 of 120 called): told apart.
        #expect(abs(model.cameAfterWindow - 30.0 / 140) < 0.01, "\(model.cameAfterWindow)")
        #expect(abs(model.neverCame + model.cameAfterWindow - model.noShow) < 1e-9)
        #expect(model.neverCame < model.noShow * 0.6, "\(model.neverCame)")
        #expect(model.appNoShow(waitedMinutes: 0) > 0.8, "\(model.appNoShowByWait)")
        #expect(model.appNoShow(waitedMinutes: 40) < 0.2, "\(model.appNoShowByWait)")
        // Short waits it saw nothing of keep the overall share; long ones say the share that never came: whoever
        // waited that long had time to come (the overall share would roll a first long line as if it vanished).
        #expect(abs(model.appNoShow(waitedMinutes: 12) - model.noShow) < 1e-9)
        #expect(abs(model.appNoShow(waitedMinutes: 25) - model.neverCame) < 1e-9, "\(model.appNoShowByWait)")
        #expect(abs(model.appNoShow(waitedMinutes: 90) - model.neverCame) < 1e-9, "\(model.appNoShowByWait)")
        // A model from an earlier server (no shares by wait) decodes with its overall share for every wait.
        var old = try! JSONSerialization.jsonObject(with: JSONEncoder().encode(model)) as! [String: Any]
        old["appNoShowByWait"] = nil
        old["calibration"] = nil
        old["cameAfterWindow"] = nil
        let decoded = try! JSONDecoder().decode(WaitModel.self, from: JSONSerialization.data(withJSONObject: old))
        #expect(decoded.appNoShowByWait.allSatisfy { $0 == decoded.noShow })
        #expect(decoded.neverCame == decoded.noShow && decoded.cameAfterWindow == 0)
    }

    /// A store whose waits come out twice what it was told: its range, learnt from its scored tickets, is about
    /// twice the told wait, and holds four in five of them; a group it scored too few of keeps the model's own.
    @Test func theRangeComesFromTheStoresOwnErrors() {
        var traffic = StoreTraffic()
        let now = Timestamp(milliseconds: 1_800_000_000_000)
        var random = SystemRandomNumberGenerator()
        var actual: [Duration] = []
        for _ in 0..<400 {
            let told = WaitRange(point: .minutes(20), low: .minutes(15), high: .minutes(25))
            let waited = Duration.minutes(Double.random(in: 30...50, using: &random))
            actual.append(waited)
            traffic.observe(scored: told, waited: waited, at: now - .seconds(86_400))
        }
        let model = WaitModel.learn(traffic, prior: .prior(averageVisit: .minutes(20)), now: now)
        let calibration = try! #require(model.calibration)
        let range = try! #require(calibration.range(about: .minutes(20)))
        let held = Double(actual.count { $0 >= range.low - .seconds(30) && $0 <= range.high + .seconds(30) })
        #expect((0.73...0.95).contains(held / Double(actual.count)), "held \(held) of \(actual.count): \(range)")
        #expect(range.low > .minutes(28) && range.high < .minutes(52), "\(range)")
        #expect(calibration.range(about: .minutes(2)) == nil, "nothing scored there")
        // Today's tickets alone (a first long line, scored an hour into it) say how the day began: the model's
        // own spread stands until earlier days have scored the group.
        var today = StoreTraffic()
        for waited in actual {
            today.observe(
                scored: WaitRange(point: .minutes(20), low: .minutes(15), high: .minutes(25)),
                waited: waited,
                at: now - .seconds(3600)
            )
        }
        #expect(WaitModel.learn(today, prior: .prior(averageVisit: .minutes(20)), now: now).calibration == nil)
        // The estimator tells it: a place whose point falls in the group gets the calibrated range.
        let estimator = WaitEstimator(model: model, callWindow: .seconds(600))
        var queue = QueueState(capacity: 1)
        queue.apply(
            StoreEvent.dayStarted(BusinessDay(number: 20_833), store: store, device: "d", at: now - .seconds(7200))
        )
        for n in 0..<3 {
            let t = ticket(n + 1, at: now - .seconds(600))
            queue.apply(event(.ticketIssued(t), at: now - .seconds(600)))
            queue.apply(event(.ticketTaken(t.id), at: now - .seconds(590)))
            if n == 0 { queue.apply(event(.ticketAdmitted(t.id, door: "d"), at: now - .seconds(580))) }
        }
        let told = estimator.wait(position: 1, in: queue, at: now)
        let calibrated = try! #require(calibration.range(about: told.point))
        #expect(told.low == min(calibrated.low, told.point) && told.high == max(calibrated.high, told.point))
        // Those 400 were told before their group was calibrated (no earlier day had scored it): they do not move
        // the calibrated range's ends.
        #expect(model.rangeShift == RangeShift())
    }

    /// A day unlike those the range was calibrated on (waits fall beyond its high end more than half the time):
    /// the shift widens the told range with every scored ticket until it holds four in five again, and narrows it
    /// when the days settle — where the calibrated range alone would hold two in five. Each group of told waits
    /// has its own: a store's short waits may be told well while its long ones run long.
    @Test func aDayUnlikeTheCalibratedOnesMovesTheRangeUntilItHolds() {
        let calibrated = WaitRange(point: .minutes(40), low: .minutes(36), high: .minutes(44))
        let group = RangeCalibration.group(of: calibrated.point)
        var shift = RangeShift()
        var u = 0.0
        /// Spread evenly over `minutes` (a golden-ratio sequence: the same every run).
        func wait(_ minutes: ClosedRange<Double>) -> Duration {
            u = (u + 0.618_033_988_75).truncatingRemainder(dividingBy: 1)
            return .minutes(minutes.lowerBound + u * (minutes.upperBound - minutes.lowerBound))
        }
        func held(_ tickets: Int, _ minutes: ClosedRange<Double>) -> (shifted: Double, calibrated: Double) {
            var shifted = 0
            var alone = 0
            for _ in 0..<tickets {
                let told = shift.applied(to: calibrated)
                let waited = wait(minutes)
                if told.holds(waited) { shifted += 1 }
                if calibrated.holds(waited) { alone += 1 }
                shift.track(told: told, waited: waited, day: 20_000)
            }
            return (Double(shifted) / Double(tickets), Double(alone) / Double(tickets))
        }
        _ = held(1_000, 35...55)
        let slow = held(1_000, 35...55)
        #expect((0.75...0.85).contains(slow.shifted), "held \(slow.shifted), shift \(shift)")
        #expect(slow.calibrated < 0.45)
        #expect(shift.widths[group] > 0.1)
        #expect(shift.widths.enumerated().allSatisfy { $0.offset == group || $0.element == 0 })
        // The days settle to within two minutes of the point: the range narrows again.
        _ = held(3_000, 38...42)
        let calm = held(1_000, 38...42)
        #expect((0.75...0.85).contains(calm.shifted), "held \(calm.shifted), shift \(shift)")
        #expect(shift.widths[group] < 0)
        // Narrowed as far as it goes, a range still holds its point inside, on the side the errors fell: moved in
        // by the same amount, [36, 44] ended as the point alone (no range told, no ticket to score it).
        var narrowest = RangeShift()
        narrowest.widths[group] = RangeShift.bounds.lowerBound
        let narrow = narrowest.applied(to: calibrated)
        #expect(narrow.low > .minutes(38) && narrow.low < narrow.point && narrow.point < narrow.high, "\(narrow)")
        #expect(narrow.isToldAsRange)
        let runsLong = narrowest.applied(to: WaitRange(point: .minutes(40), low: .minutes(40), high: .minutes(52)))
        #expect(runsLong.low == .minutes(40) && runsLong.high > .minutes(41), "\(runsLong)")
        // Widened, a range grows with its own reach: one calibrated to within 3 % (a store told its long waits to
        // the minute) after a busy day's misses is not hours wide (moved out by the width, 60 minutes became 10–355).
        var widest = RangeShift()
        let exact = WaitRange(point: .minutes(60), low: .minutes(58.2), high: .minutes(61.8))
        widest.widths[RangeCalibration.group(of: exact.point)] = 1.73
        let wide = widest.applied(to: exact)
        #expect(wide.low > .minutes(35) && wide.high < .minutes(100) && wide.high > .minutes(70), "\(wide)")
        let fromPoint = widest.applied(to: WaitRange(point: .minutes(60), low: .minutes(60), high: .minutes(61)))
        #expect(fromPoint.low < .minutes(50), "an end at the point moves out too: \(fromPoint)")
        // A call that is certain gets no range; a shift out of bounds (a damaged peer's) is brought within.
        let certain = WaitRange(point: .minutes(3), low: .minutes(3), high: .minutes(3))
        #expect(RangeShift(widths: Array(repeating: 1, count: 10)).applied(to: certain) == certain)
        let bounded = RangeShift(widths: [-9, 9, .nan] + Array(repeating: 0, count: 7)).widths
        #expect(bounded.prefix(3) == [RangeShift.bounds.lowerBound, RangeShift.bounds.upperBound, 0])
        #expect(RangeShift(widths: [1, 2]) == RangeShift(), "a list of other groups is not read as these")
    }

    /// A roll reads each group's calibrated, shifted ends as factors made once (``CalibratedRanges``): the same
    /// ranges as the model's, within 5 ms (it rounds its calibrated ends to the millisecond before the shift
    /// scales them up to 7.4 times) — widened, narrowed and unshifted groups, one of no width, one with none, ends
    /// both above or both below the point, and short waits whose calibrated low end falls below zero.
    @Test func aRollTellsTheModelsCalibratedRanges() {
        var model = WaitModel.prior(averageVisit: .minutes(20))
        typealias Bounds = RangeCalibration.Bounds
        model.calibration = RangeCalibration(groups: [
            Bounds(low: -2.5, high: 0.4), Bounds(low: -0.3, high: 0.2), nil, Bounds(low: 0.1, high: 0.1),
            Bounds(low: -0.05, high: 0.02), Bounds(low: 0, high: 0.6), Bounds(low: -0.4, high: 0),
            Bounds(low: -0.03, high: 0.03), Bounds(low: -1, high: 1), Bounds(low: 0.2, high: 0.9),
        ])
        model.rangeShift = RangeShift(widths: [1.2, -0.7, 0.5, 1, 0, -2, 2, 1.73, -0.1, 0.3])
        let estimator = WaitEstimator(model: model, callWindow: .minutes(10))
        var compared = 0
        for seconds in stride(from: 0, through: 200 * 60, by: 7) {
            let point = Duration.seconds(seconds)
            let slow = model.calibratedRange(about: point)
            let fast = estimator.calibrated.range(about: point)
            #expect((slow == nil) == (fast == nil), "at \(point)")
            guard let slow, let fast else { continue }
            let off = max(abs((slow.low - fast.low).minutes), abs((slow.high - fast.high).minutes)) * 60_000
            #expect(fast.point == slow.point && off <= 5, "at \(point): \(fast) against \(slow)")
            compared += 1
        }
        #expect(compared > 1_500)
    }

    /// The shift lives across days in the store's kept traffic; traffic kept before it starts unshifted, and a
    /// shift out of bounds in a model a kiosk receives is brought within them.
    @Test func theShiftIsKeptAndReadBack() throws {
        var traffic = StoreTraffic()
        let now = Timestamp(milliseconds: 1_800_000_000_000)
        let told = WaitRange(point: .minutes(20), low: .minutes(15), high: .minutes(25))
        let group = RangeCalibration.group(of: told.point)
        // Yesterday calibrated the group (its own tickets did not move the shift: told before it was); today's
        // waits fall beyond the high end.
        for _ in 0..<40 { traffic.observe(scored: told, waited: .minutes(20), at: now - .seconds(86_400)) }
        #expect(traffic.rangeShift == RangeShift())
        for _ in 0..<50 { traffic.observe(scored: told, waited: .minutes(30), at: now) }
        #expect(traffic.rangeShift.widths[group] > 0.3)
        let model = WaitModel.learn(traffic, prior: .prior(averageVisit: .minutes(20)), now: now)
        let shifted = try #require(model.calibratedRange(about: .minutes(20)))
        let alone = try #require(model.calibration?.range(about: .minutes(20)))
        #expect(shifted.high > alone.high + .minutes(5))
        // The next day, today's errors are the calibration's: the shift fades by half.
        var tomorrow = traffic
        tomorrow.observe(scored: told, waited: .minutes(20), at: now + .seconds(86_400))
        let faded = traffic.rangeShift.widths[group] * RangeShift.dailyKeep - RangeShift.step * 0.2
        #expect(abs(tomorrow.rangeShift.widths[group] - faded) < 1e-9, "\(tomorrow.rangeShift)")
        let kept = try JSONDecoder().decode(StoreTraffic.self, from: JSONEncoder().encode(traffic))
        #expect(kept == traffic)
        var json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(traffic)) as! [String: Any]
        json["rangeShift"] = nil
        let old = try JSONDecoder().decode(StoreTraffic.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(old.rangeShift == RangeShift() && old.days == traffic.days)
        // A wait told as 0 (no range shown) moves nothing.
        var quiet = StoreTraffic()
        quiet.observe(scored: .zero, waited: .minutes(5), at: now)
        #expect(quiet.rangeShift == RangeShift())
        var sent =
            try JSONSerialization.jsonObject(
                with: JSONEncoder().encode(WaitModel.prior(averageVisit: .minutes(20)))
            ) as! [String: Any]
        sent["rangeShift"] = ["widths": [-40.0, 1e300] + Array(repeating: 0.0, count: 8)]
        let received = try JSONDecoder().decode(WaitModel.self, from: JSONSerialization.data(withJSONObject: sent))
        #expect(received.rangeShift.widths.prefix(2) == [RangeShift.bounds.lowerBound, RangeShift.bounds.upperBound])
    }

    /// A store told to within 3 %: its range is as narrow as its errors, and holds four in five waits — not all
    /// of them (errors counted a tenth wide near zero made such a range twice too wide: 88 % held).
    @Test func aStoreToldToTheMinuteGetsANarrowRange() {
        var traffic = StoreTraffic()
        let now = Timestamp(milliseconds: 1_800_000_000_000)
        var random = SystemRandomNumberGenerator()
        let told = WaitRange(point: .minutes(40), low: .minutes(35), high: .minutes(45))
        func waited() -> Duration { .minutes(40 * Double.random(in: 0.97...1.03, using: &random)) }
        for _ in 0..<400 { traffic.observe(scored: told, waited: waited(), at: now - .seconds(86_400)) }
        let model = WaitModel.learn(traffic, prior: .prior(averageVisit: .minutes(20)), now: now)
        let range = try! #require(model.calibration?.range(about: .minutes(40)))
        let fresh = (0..<400).map { _ in waited() }
        let held = Double(fresh.count { WaitRange(point: .minutes(40), low: range.low, high: range.high).holds($0) })
        #expect((0.72...0.88).contains(held / 400), "held \(held) of 400: \(range)")
    }

    /// A day kept by a server whose errors were counted in other bins (61 a group) is not read as these: its
    /// histograms are dropped, the rest of the day is kept.
    @Test func errorsCountedInOtherBinsAreNotMisread() throws {
        var day = StoreTraffic.Day()
        day.called = 7
        var json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(day)) as! [String: Any]
        json["scored"] = Array(repeating: Array(repeating: 1, count: 61), count: RangeCalibration.edges.count + 1)
        let old = try JSONDecoder().decode(StoreTraffic.Day.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(old.scored.isEmpty && old.called == 7)
        json["scored"] = Array(
            repeating: Array(repeating: 1, count: RangeCalibration.binCount),
            count: RangeCalibration.edges.count + 1
        )
        let current = try JSONDecoder().decode(
            StoreTraffic.Day.self,
            from: JSONSerialization.data(withJSONObject: json)
        )
        #expect(current.scored.count == RangeCalibration.edges.count + 1)
    }
}
