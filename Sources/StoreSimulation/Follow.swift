import KioskCore

/// How app holders follow their ticket from home until they set out for the store (issue 49: a leave-by time,
/// and a notification that reaches a phone whose page is closed).
public enum FollowPolicy: String, Sendable, CaseIterable, Codable {
    /// They look at the ticket's page now and then, as the product allowed before it told anyone when to leave:
    /// every ``lookMinutes`` (each look drawn 0.5–1.5 times that after the last). At a look they set out if
    /// they are called, or if the wait it tells is no longer than their journey and the time to their next
    /// look (a holder who must not miss the call leaves early). A call between looks is not heard.
    case look
    /// The page, and a push with the page closed, tells them when to leave (``LeaveBy/shipped``) and when they
    /// are called; they set out then, after a delay drawn between 0 and ``leaveDelayMinutes``.
    case leaveBy = "leave-by"
    /// They know their journey exactly and watch the wait all the time: they set out the minute it is no longer
    /// than the journey, or when called (what clup-sim assumed before, and what the oracle assumes); they give
    /// the page their journey too.
    case oracleJourney = "oracle-journey"

    public static let lookMinutes = 10.0
    public static let leaveDelayMinutes = 2.0

    /// Whether holders give the page their journey, which tells the server (``HolderJourney``): those told when
    /// to leave, and those who know it exactly (the same product, so that the two compare the rule of leaving
    /// alone); not those who only look, as before the page asked.
    public var tellsJourney: Bool { self != .look }
}

/// What the holders' way of following did at the door over the scored days.
public struct FollowFigures: Codable, Sendable, Equatable {
    public var policy: String
    /// App holders who came in over the scored days.
    public var holders: Int
    /// Minutes they stood at the door before going in, on average.
    public var doorMinutesPerHolder: Double
    /// People at the door (any ticket, not let in yet) over the opening hours: mean, and the 90th percentile of
    /// the door's count every 15 s.
    public var peopleAtDoorMean: Double
    public var peopleAtDoorP90: Double
    /// Holders who reached the door after their ticket was gone (expired, or a booking past its window).
    public var lateArrivals: Int
    /// App tickets whose holder meant to come that ended unused (the holder came too late): no-shows apart.
    public var expiredUnused: Int
    /// Places held for a called holder not at the door while someone stood at the door outside, in place-minutes
    /// an opening hour: capacity lost to holders still on their way.
    public var emptyPlaceMinutesPerHour: Double
}

/// The tally behind ``FollowFigures``, kept as the simulation runs.
struct FollowTally {
    var doorMinutes = 0.0
    var holders = 0
    var doorCounts: [Int] = []
    var emptyPlaceMinutes = 0.0
}

extension Simulation {
    /// Whether `shopper`, at home and told `wait` at `now`, sets out now (a look or a push: as ``follow`` says).
    func setsOut(_ shopper: Shopper, told wait: WaitRange, called: Bool, at now: Timestamp) -> Bool {
        let journey = Duration.minutes(shopper.plan.travelMinutes)
        switch follow {
        case .oracleJourney:
            return called || wait.point <= journey
        case .look:
            return called || wait.point <= journey + .minutes(FollowPolicy.lookMinutes)
        case .leaveBy:
            return called || LeaveBy.shipped.time(wait: wait, journey: journey, at: now) <= now
        }
    }

    /// Whether holder `id` looks at its ticket now (a `look` holder only at its looks; the others all the time).
    func looks(_ id: TicketID, at now: Timestamp) -> Bool {
        guard follow == .look else { return true }
        guard let next = shoppers[id]?.nextLook else { return true }
        guard next <= now else { return false }
        shoppers[id]?.nextLook = now + .minutes(FollowPolicy.lookMinutes * followRandom.uniform(0.5...1.5))
        return true
    }

    /// How long after a push a holder sets out (``FollowPolicy/leaveBy``: its page was closed); the others set
    /// out when they look.
    func setOutDelay() -> Duration {
        follow == .leaveBy ? .minutes(followRandom.uniform(0...FollowPolicy.leaveDelayMinutes)) : .zero
    }

    /// The door and the held places every tick of the scored days' opening hours.
    func tallyDoor(at now: Timestamp, seconds: Double) {
        guard now >= scoredFrom, live.state.isOpen(at: now) else { return }
        followTally.doorCounts.append(atDoor.count)
        guard !atDoor.isEmpty else { return }
        let away = live.state.calledIDs(at: now).count { !atDoor.contains($0) }
        followTally.emptyPlaceMinutes += Double(min(away, atDoor.count)) * seconds / 60
    }

    /// A holder let in: how long it stood at the door.
    func tallyAdmitted(_ shopper: Shopper, at now: Timestamp) {
        guard now >= scoredFrom, shopper.plan.kind == .app, let reached = shopper.reachedDoor else { return }
        followTally.doorMinutes += (now - reached).minutes
        followTally.holders += 1
    }

    public var followFigures: FollowFigures {
        let counts = followTally.doorCounts.sorted()
        let unused = shoppers.values.count { shopper in
            shopper.plan.kind == .app && !shopper.plan.noShow && shopper.joined >= scoredFrom
                && shopper.admitted == nil
        }
        let hours = max(score.openMinutes / 60, 1e-9)
        return FollowFigures(
            policy: follow.rawValue,
            holders: followTally.holders,
            doorMinutesPerHolder: followTally.doorMinutes / Double(max(followTally.holders, 1)),
            peopleAtDoorMean: score.meanPeopleAtDoor,
            peopleAtDoorP90: counts.isEmpty ? 0 : Double(counts[min(counts.count * 9 / 10, counts.count - 1)]),
            lateArrivals: score.lateArrivals,
            expiredUnused: unused,
            emptyPlaceMinutesPerHour: followTally.emptyPlaceMinutes / hours
        )
    }
}
