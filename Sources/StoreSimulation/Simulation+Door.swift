import CLupServer
import KioskCore

/// The door and the shoppers' comings and goings: who is let in (the door's rule on the server's queue), who
/// is too late, who leaves home for the store.
extension Simulation {
    /// Lets in, one by one, every holder at the door the queue says may come in now: a called ticket, or a
    /// booking in its window while there is room. A ticket that expired, or a booking past its window, is refused
    /// (the door logs it, as the kiosk's does) and goes home.
    func letIn(at now: Timestamp) async throws {
        var changed = true
        while changed {
            changed = false
            let state = live.state
            // By when they joined (looked up once: a drawn store's door holds dozens, sorted after every admission).
            let byJoining = atDoor.map { (joined: shoppers[$0]?.joined ?? now, id: $0) }
            for (_, id) in byJoining.sorted(by: { $0.joined < $1.joined }) {
                guard let shopper = shoppers[id], let stage = state.stage(of: id) else {
                    atDoor.remove(id)
                    continue
                }
                guard case .waiting = stage else {
                    atDoor.remove(id)
                    if stage == .expired {
                        score.lateArrivals += now >= scoredFrom ? 1 : 0
                        try await append([.scanRefused(reason: "expired", ticket: id, door: Self.kiosk)], at: now)
                    }
                    continue
                }
                let may: Bool
                if let slot = shopper.ticket.slot {
                    guard now <= Admission.lateFrom(slot, queue: state, now: now, policy: policy) + policy.bookingLate
                    else {
                        atDoor.remove(id)
                        score.lateArrivals += now >= scoredFrom ? 1 : 0
                        try await append([.scanRefused(reason: "too_late", ticket: id, door: Self.kiosk)], at: now)
                        continue
                    }
                    may = now >= slot.start && state.isOpen(at: now) && !state.isPaused(at: now) && state.freePlaces > 0
                } else {
                    may = state.isCalled(id, at: now)
                }
                guard may else { continue }
                try await admit(id, shopper, calledAt: state.callTime(of: id, at: now) ?? now, at: now)
                changed = true
                break
            }
        }
    }

    func admit(_ id: TicketID, _ shopper: Shopper, calledAt: Timestamp, at now: Timestamp) async throws {
        atDoor.remove(id)
        shoppers[id]?.admitted = now
        tallyAdmitted(shopper, at: now)
        try await append([.ticketAdmitted(id, door: Self.kiosk)], at: now)
        inside[id] = now
        admissions.append(now)
        agenda.add(now + .minutes(shopper.plan.visitMinutes), .leave(id))
    }

    /// An app holder or a booking reaches the door.
    func reachDoor(_ id: TicketID, at now: Timestamp) {
        guard live.state.stage(of: id) != nil else {
            score.lateArrivals += now >= scoredFrom ? 1 : 0
            return
        }
        shoppers[id]?.reachedDoor = now
        atDoor.insert(id)
    }

    /// App holders at home look at their ticket's wait (as ``follow`` says they do): who sets out does.
    func watch(at now: Timestamp) {
        guard !atHome.isEmpty else { return }
        let state = live.state
        let positions = atHome.compactMap { id in state.position(of: id, at: now).map { (id, $0) } }
        let told = live.estimator.schedule(through: positions.map(\.1).max() ?? 0, in: state, at: now)
        for id in atHome where looks(id, at: now) {
            guard let shopper = shoppers[id], let position = state.position(of: id, at: now) else {
                leaveHome(id, at: now, delay: setOutDelay())  // called already, or gone
                continue
            }
            if setsOut(shopper, told: told[position], called: state.isCalled(id, at: now), at: now) {
                leaveHome(id, at: now, delay: setOutDelay())
            }
        }
    }

    /// At the ticket's take: a holder whose wait is already short sets out at once (it is looking at the page:
    /// no delay); a `look` holder's next look is drawn.
    func leaveHomeIfDue(_ id: TicketID, at now: Timestamp) {
        guard let shopper = shoppers[id], let told = shopper.told else { return }
        if follow == .look {
            shoppers[id]?.nextLook = now + .minutes(FollowPolicy.lookMinutes * followRandom.uniform(0.5...1.5))
        }
        if setsOut(shopper, told: told, called: false, at: now) { leaveHome(id, at: now) }
    }

    /// Holder `id` sets out for the store `delay` from now.
    func leaveHome(_ id: TicketID, at now: Timestamp, delay: Duration = .zero) {
        guard atHome.remove(id) != nil, let shopper = shoppers[id] else { return }
        let setOut = now + delay
        shoppers[id]?.leftHome = setOut
        agenda.add(setOut + .minutes(shopper.plan.travelMinutes), .reachDoor(id))
    }

    /// Scored tickets called since the last look: their actual wait.
    func settle(at now: Timestamp) {
        let state = live.state
        for id in score.pending {
            guard let shopper = shoppers[id], let row = shopper.row else {
                score.pending.remove(id)
                continue
            }
            if let called = state.callTime(of: id, at: now) {
                score.called(row, after: called - shopper.joined)
                score.pending.remove(id)
            } else if state.stage(of: id) == nil {
                score.pending.remove(id)
            }
        }
    }
}
