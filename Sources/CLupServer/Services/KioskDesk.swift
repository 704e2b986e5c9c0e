import KioskCore

/// What a kiosk pushes, on its way into the store's log: checked against what the kiosk's credential may write
/// (``EventChecks``, ``LogView``), within the pace of its devices (``KioskPace``), stamped when it came late
/// (``LateEvents``), and appended (idempotent by event id).
struct KioskDesk: Sendable {
    let logs: StoreQueues
    let database: any ServerStorage
    let checks: EventChecks
    let late: LateEvents
    let pace: KioskPace
    let fleet: Fleet

    /// Appends what fits the kiosk's pace of `events` (a prefix: the kiosk pushes the rest later) and answers
    /// where each went; refuses the batch when one event may not be written (naming it), or when none fits the
    /// pace now (429).
    func take(_ events: [StoreEvent], from kiosk: KioskGrant) async throws -> [AppendResult] {
        let now = logs.clock.now()
        let checked = try await check(events, from: kiosk, now: now)
        // A type that older kiosks of the store would stop at is written only where none of them speaks here; the
        // refusal names the first such event, which the kiosk sets aside (its outbox goes on).
        var asked: Set<StoreEvent.Kind> = []
        for (i, event) in checked.enumerated() {
            guard let kind = event.body.known, asked.insert(kind).inserted else { continue }
            try await fleet.requireNoneFreezes(on: kind, store: kiosk.store, field: "events[\(i)].body.type")
        }
        var (allowed, retryAfter) = pace.take(checked, kiosk: kiosk, now: now)
        var free: Set<EventID> = []
        if allowed < checked.count {
            // Short of budget: what the log holds already (a retry of a push whose answer was lost) is free.
            pace.refund(checked.prefix(allowed), kiosk: kiosk)
            free = try await database.knownEvents(checked.map(\.id), store: kiosk.store)
            (allowed, retryAfter) = pace.take(checked, kiosk: kiosk, free: free, now: now)
        }
        guard allowed > 0 || checked.isEmpty else {
            throw Refusal(
                .tooMany,
                "this kiosk writes faster than a printer or a door can: the rest of its outbox is taken later",
                retryAfter: retryAfter
            )
        }
        let taken = Array(checked.prefix(allowed))
        let stamped = try await late.stamped(taken, store: kiosk.store, device: kiosk.device, now: now)
        let appended: [AppendResult]
        do {
            appended = try await logs.append(stamped, store: kiosk.store)
        } catch {
            pace.refund(taken.filter { !free.contains($0.id) }, kiosk: kiosk)
            throw error
        }
        let again = Set(appended.filter { !$0.new }.map(\.id))
        pace.refund(taken.filter { again.contains($0.id) && !free.contains($0.id) }, kiosk: kiosk)
        return appended
    }

    /// The checks, against this replica's queue; a refusal that depends on the log (409) is checked again
    /// against the whole log (another replica may have appended what the event names) and without the events the
    /// log holds already (a retry of a push whose answer was lost: an exit counted twice is not counted at all).
    private func check(_ events: [StoreEvent], from kiosk: KioskGrant, now: Timestamp) async throws -> [StoreEvent] {
        let policy = AdmissionPolicy(callWindow: logs.callWindow)
        let live = try await logs.require(kiosk.store)
        let calendar = live.record.profile.calendar
        let first = Result { () throws(Refusal) in
            try checks.check(
                events,
                kiosk: kiosk,
                calendar: calendar,
                log: LogView(state: live.state, policy: policy, now: now),
                now: now
            )
        }
        switch first {
        case .success(let checked): return checked
        case .failure(let refusal) where refusal.code != .conflict: throw refusal
        case .failure:
            // Only what depends on the log (409) can change by reading more of it.
            try await logs.catchUp(kiosk.store)
            let known = try await database.knownEvents(events.map(\.id), store: kiosk.store)
            let state = try await logs.require(kiosk.store).state
            return try checks.check(
                events,
                kiosk: kiosk,
                calendar: calendar,
                log: LogView(state: state, policy: policy, now: now),
                known: known,
                now: now
            )
        }
    }
}
