import KioskCore

/// The server's writers of a store's log: every server event is made here (an issued ticket by KioskCore's
/// ``ServerIssue``, a cancel, a store's first day; the profile's capacity change, the day's start and expiries in
/// `StoreQueues+Profile.swift` and `StoreQueues+Duties.swift`), and a kiosk's events are appended here.
extension StoreQueues {
    /// Appends events to a store's log (idempotent by event id) and applies the new ones.
    public func append(_ events: [StoreEvent], store: StoreID) async throws -> [AppendResult] {
        _ = try await require(store)
        // A ticket id belongs to one store for ever: the append refuses another store's (``IssuedTickets``).
        let results = try await database.append(events, store: store) { [self] added in
            applyCommitted(added, store: store)
        }
        try await counted(results, store: store)
        return results
    }

    /// After an append committed: counts its new events and reads the log up to them (a replica reads its own
    /// write before it answers).
    func counted(_ results: [AppendResult], store: StoreID) async throws {
        ReplicaMetrics.eventsAppended.increment(by: results.count { $0.new })
        try await catchUp(store, through: results.map(\.sequence).max() ?? 0)
    }

    /// Issues an app ticket or a booking in the store's log; an app ticket is told the wait of the line's end
    /// (kept in its event, to measure the estimate by). A booking with a `slotSize` is refused (409) when its
    /// slot already holds that many, checked on the store's writer, so two bookings cannot take its last place.
    public func issue(
        kind: TicketKind,
        store: StoreID,
        slot: BookingSlot? = nil,
        slotSize: Int? = nil,
        validity: (from: Timestamp, until: Timestamp)? = nil,
        statusURL: String,
        holder: Holder? = nil,
        at now: Timestamp
    ) async throws -> AppTicket {
        let live = try await require(store)
        var check: IssueCheck?
        if let slot, let slotSize {
            check = { [self] in
                guard let state = self.store(store)?.state else { return }
                if Slots.booked(state, start: slot.start) >= slotSize {
                    throw Refusal(.conflict, "this slot is fully booked — choose another", field: "slotStart")
                }
            }
        }
        let told = kind == .app ? live.wait(position: live.state.lineLength(at: now), at: now) : nil
        let rule = ServerIssue(
            kind: kind,
            store: store,
            slot: slot,
            told: told,
            at: now,
            day: live.record.profile.calendar.businessDay(at: now)
        )
        let issued = try await database.issue(IssueOrder(rule, holder: holder, check: check)) { [self] added in
            applyCommitted(added, store: store)
        }
        // A replica reads its own write before it answers (on PostgreSQL, commits of concurrent requests can
        // report out of order: one that came before a gap is applied once the missing part has been read).
        try await catchUp(store, through: issued.sequence)
        // Signed after the commit: signatures of concurrent requests neither queue on the writer nor hold the
        // store's row.
        let qr = TicketCodec.encode(
            issued.ticket,
            validFrom: validity?.from,
            validUntil: validity?.until,
            signer: live.record.signer,
            prefix: statusURL
        )
        return AppTicket(ticket: issued.ticket, qr: qr, sequence: issued.sequence, told: told)
    }

    /// Cancels ticket `id` of `store` in its log, as the server.
    public func cancel(_ id: TicketID, store: StoreID, at now: Timestamp) async throws {
        let event = StoreEvent.new(.ticketCancelled(id), store: store, device: ServerIssue.device, at: now)
        _ = try await append([event], store: store)
    }

    /// Records that ticket `id`'s holder told its journey (``HolderJourney``), as the server; the caller checked
    /// the holder and the minutes.
    public func tellJourney(_ id: TicketID, minutes: Int, store: StoreID, at now: Timestamp) async throws {
        let event = StoreEvent.new(
            .journeyTold(id, minutes: minutes),
            store: store,
            device: ServerIssue.device,
            at: now
        )
        _ = try await append([event], store: store)
    }

    /// Records what the store's staff did (a corrected count, people let in without a ticket: ``StaffCount``; a
    /// pause or resume of the calls: ``LinePause``), as the server; the caller checked its values.
    public func recordStaff(_ body: StoreEvent.Body, store: StoreID, at now: Timestamp) async throws {
        switch body {
        case .countCorrected, .letIn, .linePaused, .lineResumed:
            _ = try await append(
                [StoreEvent.new(body, store: store, device: ServerIssue.device, at: now)],
                store: store
            )
        default:
            preconditionFailure("recordStaff takes a staff event, not \(body.known?.rawValue ?? "an unknown one")")
        }
    }

    /// Opens a store registered here: its queue, and its log's first event, its business day with the day's
    /// hours (nothing is called before it opens).
    public func open(_ record: StoreRecord, at now: Timestamp) async throws {
        add(record)
        let calendar = record.profile.calendar
        let start = calendar.dayStarted(calendar.businessDay(at: now), store: record.id, device: ServerIssue.device)
        _ = try await append([start], store: record.id)
    }
}
