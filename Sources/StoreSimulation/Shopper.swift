import KioskCore

/// One shopper of the simulation: who they are (the scenario's draw) and where they stand.
struct Shopper {
    /// What the scenario drew for them before they came.
    struct Plan {
        var kind: TicketKind
        /// When they want to go in (a booking: its slot's start).
        var wants: Timestamp
        /// How long they stay, minutes.
        var visitMinutes: Double
        /// App holders and bookings who never come.
        var noShow: Bool
        /// Minutes from home to the door (app holders).
        var travelMinutes: Double
        /// What a booking said it would stay, minutes (R20), if it said.
        var saysMinutes: Int?
        /// A booking's arrival after its slot's start, minutes (may be early).
        var arrivalOffsetMinutes: Double
    }

    var plan: Plan
    var ticket: Ticket
    var joined: Timestamp
    /// What it was told (clup) when it joined.
    var told: WaitRange?
    /// Scored: the index of its row in the score.
    var row: Int?
    var called: Timestamp?
    var admitted: Timestamp?
    /// When an app holder left home for the door, and reached it.
    var leftHome: Timestamp?
    var reachedDoor: Timestamp?
    /// A holder who looks at its page now and then (``FollowPolicy/look``): its next look.
    var nextLook: Timestamp?
}

extension Simulation {
    /// Draws day `day`'s shoppers, hour by hour, and puts them in the agenda.
    func planDay(_ day: Int) {
        let date = BusinessDay(number: BusinessDay(localDateOf: start, zone: calendar.zone).number + Int64(day))
        let opening = date.instant(secondsAfterMidnight: scenario.opens.secondsAfterMidnight, zone: calendar.zone)
        let closing = date.instant(secondsAfterMidnight: scenario.closes.secondsAfterMidnight, zone: calendar.zone)
        if let pause = scenario.pause, pause.day == day {
            let at = opening + .seconds(Int64(pause.hour) * 3600 + Int64(pause.minute) * 60)
            agenda.add(at, .pause(minutes: pause.minutes))
        }
        for (hour, rate) in scenario.arrivals(weekday: date.weekday, day: day).enumerated() {
            let from = opening + .seconds(Int64(hour) * 3600)
            let to = min(from + .seconds(3600), closing)
            guard to > from else { continue }
            for _ in 0..<random.poisson(rate * (to - from).minutes / 60) {
                let wants = from + .milliseconds(Int64(random.unit() * Double((to - from).components.seconds * 1000)))
                plan(wants: wants, closing: closing)
            }
        }
    }

    func plan(wants: Timestamp, closing: Timestamp) {
        let u = random.unit()
        let kind: TicketKind =
            u < scenario.appShare ? .app : u < scenario.appShare + scenario.bookingShare ? .booking : .paper
        var plan = Shopper.Plan(
            kind: kind,
            wants: wants,
            visitMinutes: scenario.visitMinutes(&random),
            noShow: kind != .paper && random.chance(scenario.noShow),
            travelMinutes: random.uniform(scenario.travelMinutes),
            saysMinutes: nil,
            arrivalOffsetMinutes: min(max(1 + 2 * random.normal(), -2), 7)
        )
        guard kind == .booking else {
            agenda.add(wants, .arrive(plan))
            return
        }
        // A slot that has room, at or after the time they want; else they come with an app ticket.
        let length = Int64(scenario.slotMinutes) * 60_000
        var slot = Timestamp(milliseconds: (wants.milliseconds + length - 1) / length * length)
        while booked[slot, default: 0] >= scenario.slotSize { slot = slot + .milliseconds(length) }
        guard slot + .milliseconds(length) <= closing else {
            plan.kind = .app
            agenda.add(wants, .arrive(plan))
            return
        }
        booked[slot, default: 0] += 1
        plan.wants = slot
        if random.chance(scenario.expectedVisitShare) {
            // Said in five-minute steps; the visit is about what they said.
            let says = max(5, Int((plan.visitMinutes / 5).rounded()) * 5)
            plan.saysMinutes = says
            plan.visitMinutes = Double(says) * random.logNormal(mean: 1, sd: 0.2)
        }
        agenda.add(slot - .seconds(Int64(random.uniform(1800...86_400))), .book(plan))
    }

    /// A paper ticket torn off at the door, or an app ticket taken at home.
    func arrive(_ plan: Shopper.Plan, at now: Timestamp) async throws {
        guard calendar.handsOutTickets(at: now), live.state.isOpen(at: now) else { return }
        let ticket: Ticket
        switch plan.kind {
        case .paper:
            // The kiosk prints the wait of the line's end (its estimator, the server's model) and the
            // customer tears the ticket off.
            let position = live.state.lineLength(at: now)
            let told = live.wait(position: position, at: now)
            let day = calendar.businessDay(at: now)
            paperNumbers[day.number, default: 0] += 1
            ticket = Ticket(
                id: .v7(at: now),
                store: store,
                kind: .paper,
                code: TicketCode(prefix: "A", number: paperNumbers[day.number]!),
                issuedAt: now,
                issuer: Self.kiosk
            )
            record(ticket, plan: plan, told: told, at: now)
            try await append([.ticketIssued(ticket, told: told), .ticketTaken(ticket.id)], at: now)
            atDoor.insert(ticket.id)
            try await letIn(at: now)
        case .app:
            let issued = try await logs.issue(kind: .app, store: store, statusURL: "HTTPS://SIM/T/", at: now)
            ticket = issued.ticket
            record(ticket, plan: plan, told: issued.told, at: now)
            if follow.tellsJourney {
                // The page asked how they come, and told the server (``HolderJourney``), no-shows too.
                let minutes = min(max(Int(plan.travelMinutes.rounded(.up)), 1), HolderJourney.minutes.upperBound)
                try await logs.tellJourney(ticket.id, minutes: minutes, store: store, at: now)
            }
            guard !plan.noShow else { return }
            atHome.insert(ticket.id)
            leaveHomeIfDue(ticket.id, at: now)
        case .booking:
            return
        }
    }

    func book(_ plan: Shopper.Plan, at now: Timestamp) async throws {
        let length = Duration.seconds(scenario.slotMinutes * 60)
        let slot = BookingSlot(start: plan.wants, end: plan.wants + length, expectedVisitMinutes: plan.saysMinutes)
        let issued = try await logs.issue(
            kind: .booking,
            store: store,
            slot: slot,
            statusURL: "HTTPS://SIM/T/",
            at: now
        )
        shoppers[issued.ticket.id] = Shopper(plan: plan, ticket: issued.ticket, joined: plan.wants)
        guard !plan.noShow else { return }
        agenda.add(plan.wants + .minutes(plan.arrivalOffsetMinutes), .reachDoor(issued.ticket.id))
    }

    /// Keeps the shopper, and scores its ticket on the scored days.
    func record(_ ticket: Ticket, plan: Shopper.Plan, told: WaitRange?, at now: Timestamp) {
        var shopper = Shopper(plan: plan, ticket: ticket, joined: now, told: told)
        if now >= scoredFrom, scoresEstimators, let told {
            let state = live.state
            let ahead = state.position(of: ticket.id, at: now) ?? state.lineLength(at: now)
            let (said, spent) = estimates(for: ticket, told: told, ahead: ahead, at: now)
            shopper.row = score.add(ticket.id, said, kind: ticket.kind, ahead: ahead, joined: now, clup: spent)
            if plan.noShow { score.noShows += 1 }
        }
        shoppers[ticket.id] = shopper
    }
}

extension Duration {
    var minutesValue: Double { Double(components.seconds) / 60 + Double(components.attoseconds) / 6e19 }
}
