import KioskCore

extension ShopperDesk {
    /// `PUT /v1/tickets/{ticket}/journey`: the holder's trip to the door, in minutes.
    struct Journey: Decodable, Sendable {
        var minutes: Int
    }

    /// What the server keeps of a told journey: the minutes, and the ticket's call window from them (from its call,
    /// or if it were called now).
    struct JourneyTold: Encodable, Sendable {
        var minutes: Int
        /// How long the ticket's call lasts from its call (or, not called yet, if called now), in whole minutes
        /// (``HolderJourney``).
        var callWindowMinutes: Int
    }

    /// Records that the holder of waiting ticket `id` (checked by the caller) comes from `journey.minutes`
    /// away, so that its call window reaches the trip (``HolderJourney``): an event of the store's log, for every
    /// door. The same minutes again write nothing; a ticket's holder may tell it ``HolderJourney/timesPerTicket``
    /// times. While a kiosk of the store would stop pulling at the event, nothing is written and the answer says
    /// the store's window.
    func tellJourney(_ journey: Journey, ticket id: TicketID) async throws -> JourneyTold {
        guard HolderJourney.minutes.contains(journey.minutes) else {
            throw Refusal.invalid(
                "whole minutes, \(HolderJourney.minutes.lowerBound) to \(HolderJourney.minutes.upperBound)",
                field: "minutes"
            )
        }
        guard let live = logs.store(containing: id), let entry = live.state.entries[id] else {
            throw Refusal.notFound("ticket \(id)")
        }
        guard case .waiting = entry.stage else {
            throw Refusal(.conflict, "the ticket is no longer in line: a journey changes nothing now")
        }
        guard entry.ticket.slot == nil else {
            throw Refusal(.conflict, "a booking keeps its slot's window: come for its start, a journey changes nothing")
        }
        let state = live.state
        if state.journeys[id] != journey.minutes {
            guard state.journeys.times(id) < HolderJourney.timesPerTicket else {
                throw Refusal(
                    .conflict,
                    "a ticket's journey can be told \(HolderJourney.timesPerTicket) times — the last one counts"
                )
            }
            // A store with a kiosk that would stop pulling at it keeps the store's window (the shopper is not
            // told about kiosks): the page still says when to leave.
            if try await fleet?.freezing(on: .journeyTold, store: live.record.id).isEmpty ?? true {
                try await logs.tellJourney(id, minutes: journey.minutes, store: live.record.id, at: logs.clock.now())
            }
        }
        // From its call, or from now for a ticket not called yet.
        let now = logs.clock.now()
        let after = try await logs.require(live.record.id).state
        let called = after.callTime(of: id, at: now) ?? now
        let window = after.callWindow(of: id, calledAt: called, policy: AdmissionPolicy(callWindow: logs.callWindow))
        return JourneyTold(minutes: journey.minutes, callWindowMinutes: Int(window.components.seconds / 60))
    }
}
