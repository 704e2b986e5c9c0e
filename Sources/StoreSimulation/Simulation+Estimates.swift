import KioskCore

/// What every estimator says of a ticket as it joins the line, and how long it took to say it.
extension Simulation {
    /// Every estimator's wait for `ticket`, and what the shipped one cost (also summed in the score).
    func estimates(
        for ticket: Ticket,
        told: WaitRange,
        ahead: Int,
        at now: Timestamp
    ) -> (said: [Score.Estimator: WaitRange], clup: Duration) {
        let state = live.state
        let visit = Duration.seconds(scenario.averageVisitMinutes * 60)
        var out: [Score.Estimator: WaitRange] = [.clup: told]
        func point(_ duration: Duration) -> WaitRange { WaitRange(point: duration, low: duration, high: duration) }
        out[.rasdNaive] = point(visit * ahead)
        let queueLength = QueueLengthEstimate(averageVisit: visit, capacity: state.capacity)
            .wait(peopleAhead: ahead, freePlaces: state.freePlaces)
        out[.queueLength] = point(queueLength)
        out[.previous] = point(
            previous?.wait(peopleAhead: ahead, freePlaces: state.freePlaces, at: now, zone: calendar.zone)
                ?? queueLength
        )
        // The shipped estimate once more, timed: what a page view costs.
        var started = ContinuousClock.now
        _ = live.wait(position: ahead, at: now)
        let clup = ContinuousClock.now - started
        score.computing[.clup, default: .zero] += clup
        started = ContinuousClock.now
        out[.oracle] = oracle(ahead: ahead, at: now)
        score.computing[.oracle, default: .zero] += ContinuousClock.now - started
        return (out, clup)
    }
}
