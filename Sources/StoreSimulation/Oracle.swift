import KioskCore

/// The best possible estimate, the physical limit: from the true state of the store (who is inside and since
/// when, who is at the door and who on the way, the line, the bookings) with the world's true behaviour — the
/// scenario's visits, no-shows, journeys and bookings' arrivals, and app holders who leave home as their ticket
/// tells them — run the door forward many times on the queue's own rule; the median call time is the estimate
/// and its 10th and 90th percentiles the range. It knows the distributions, not any one shopper's fate.
extension Simulation {
    static let oracleRuns = 64

    func oracle(ahead: Int, at now: Timestamp) -> WaitRange {
        let state = live.state
        let line = state.line(at: now)
        let late = Double(policy.bookingLate.components.seconds) / 60
        let slots = state.upcoming(after: now).compactMap { ticket -> (start: Double, id: TicketID)? in
            ticket.slot.map { (($0.start - now).minutes, ticket.id) }
        }
        // What each holder at home reads on its ticket now: it leaves when that falls below its journey.
        let told = live.estimator.schedule(through: ahead, in: state, at: now).map { $0.point.minutes }
        // What the runs read of each holder ahead, looked up once (the runs draw, in the same order, what differs).
        let known = line.prefix(ahead).enumerated().map { position, ticket in
            OracleRun.Known(
                slot: ticket.slot,
                calledAgo: state.callTime(of: ticket.id, at: now).map { (now - $0).minutes },
                told: told[position],
                atDoor: atDoor.contains(ticket.id),
                shopper: shoppers[ticket.id].map { (leftHome: $0.leftHome, says: $0.plan.saysMinutes) }
            )
        }
        let elapsedInside = inside.values.map { (now - $0).minutes }
        // Staff's pause as the log says it (the oracle knows the world's future, not what staff will decide).
        let pause = state.pauses.latest.flatMap { pause -> (from: Double, until: Double)? in
            guard let end = pause.end, end > now else { return nil }
            return ((pause.since - now).minutes, (end - now).minutes)
        }
        var calls: [Double] = []
        for _ in 0..<Self.oracleRuns {
            var run = OracleRun(capacity: scenario.capacity, window: Double(scenario.callWindowMinutes), late: late)
            run.pause = pause
            // The people inside leave after what is left of their visits.
            for elapsed in elapsedInside {
                run.departures.frees(at: scenario.remainingVisitMinutes(after: elapsed, &random))
            }
            run.inside = inside.count
            // The line ahead, and the ticket itself at its end.
            for holder in known { run.line.append(self.holder(holder, late: late, at: now)) }
            run.line.append(OracleRun.Holder(arrives: 0, visit: 0))
            // The bookings to come that come: from their arrival (not before their slot) to the end of its window.
            run.bookings = slots.compactMap { slot -> OracleRun.Holder? in
                guard !random.chance(scenario.noShow) else { return nil }
                let arrival = slot.start + min(max(1 + 2 * random.normal(), -2), 7)
                return OracleRun.Holder(
                    arrives: max(arrival, slot.start),
                    visit: visit(slot.id),
                    gone: slot.start + late
                )
            }
            calls.append(run.callOfLast())
        }
        calls.sort()
        func quantile(_ q: Double) -> Duration { .minutes(calls[min(Int(q * Double(calls.count)), calls.count - 1)]) }
        return WaitRange(point: quantile(0.5), low: quantile(0.1), high: quantile(0.9))
    }

    /// A holder of the line as this run draws it: at the door; a booking on its way (it comes in on a free place
    /// in its window, as at the door); an app holder on the way, or at home — who leaves when called or when its
    /// ticket's wait falls below its journey, whichever is first — or who never comes.
    func holder(_ known: OracleRun.Known, late: Double, at now: Timestamp) -> OracleRun.Holder {
        let visit = visit(says: known.shopper?.says)
        let calledAt = known.calledAgo.map { -$0 }
        guard !known.atDoor, let shopper = known.shopper else {
            return OracleRun.Holder(arrives: 0, visit: visit, calledAt: calledAt)
        }
        if let slot = known.slot {
            // Past its latest arrival and not at the door: it is not coming.
            let start = (slot.start - now).minutes
            let arrives = start + 7 < 0 ? Double.infinity : max(start + random.uniform(max(-2, -start)...7), start)
            return OracleRun.Holder(arrives: arrives, visit: visit, calledAt: calledAt, gone: start + late)
        }
        let journey = scenario.travelMinutes
        if let left = shopper.leftHome {
            // On the way since `left`: a journey longer than it has been on it so far.
            let gone = (now - left).minutes
            let travel =
                gone >= journey.upperBound ? gone : random.uniform(max(journey.lowerBound, gone)...journey.upperBound)
            return OracleRun.Holder(arrives: travel - gone, visit: visit, calledAt: calledAt)
        }
        guard !random.chance(scenario.noShow) else {
            return OracleRun.Holder(arrives: .infinity, visit: visit, calledAt: calledAt)
        }
        let travel = random.uniform(journey)
        return OracleRun.Holder(leaves: max(known.told - travel, 0), travel: travel, visit: visit, calledAt: calledAt)
    }

    /// A visit drawn as the scenario draws them (a booking that said its stay: about that).
    func visit(_ id: TicketID) -> Double { visit(says: shoppers[id]?.plan.saysMinutes) }

    func visit(says: Int?) -> Double {
        if let says { return Double(says) * random.logNormal(mean: 1, sd: 0.2) }
        return scenario.visitMinutes(&random)
    }
}
