/// The printer station's decisions: which ticket waits in the printer, when it is printed (again), when it was
/// taken, when it goes back in. The executor (kioskd's `PrinterLoop`) owns the printer and the store: each turn it
/// reports one look at the printer, carries out the actions returned, in order, and reports what they found.
///
/// The rules it keeps:
/// - One ticket at a time. The store issues it durably before its bytes go (`fetchTicket`), so a restart finds
///   at most one ticket not taken, with how far it got (``TicketPrintState``).
/// - A ticket seen in the presenter, or seen taken, was printed; only a print that never reached its cut is
///   printed again, after the printer's buffer is cleared (the fault struck mid-ticket: paper out, cover open),
///   and only while the store says so (`notSent`): a reprint that a lost connection cut short is looked for.
/// - A ticket whose print a lost connection cut short (or that a restart finds `sending`) is looked for when
///   the printer is back: there → printed; gone → taken (a skipped number is a no-show, a second copy would
///   put one code in two hands); a station that cannot see the ticket keeps it as printed.
/// - A take is written before anything else happens; until it is (storage full), no new ticket is issued.
/// - A ticket an earlier business day issued, or nobody took within the ``RetractRule``'s time, goes back in
///   on a printer that can retract, and is voided; one the printer would not retract is not tried again. When
///   the ticket left the printer's mouth and the printer cannot tell whether it went back in or a customer
///   took it at that instant, it is never voided: it is set aside, still valid, and its holder is admitted.
/// - While the store hands out no tickets (closed, before its window, ``StoreCalendar``) no new one is issued:
///   the station asks only for a ticket already in hand, and waits for the window.
///
/// Times are "elapsed since some start" (``Duration``) for waits, and wall ``Timestamp``s for what is recorded,
/// both handed in, like ``TearOffMachine``'s (which this drives for the take itself).
public struct PrinterStationMachine: Sendable, Equatable {
    public struct Settings: Sendable, Equatable {
        /// The pause between looks while a ticket waits (status polling).
        public var pollInterval: Duration
        public var debounce: Duration
        /// The printer pushes its status (ASB): the executor's read waits for a push, so no pause between looks.
        public var statusIsPushed: Bool
        /// The station can see a ticket sitting in the printer (a presenter bit, a modem line).
        public var seesPresence: Bool
        public var retract: RetractRule

        public init(
            pollInterval: Duration = .milliseconds(100),
            debounce: Duration = .milliseconds(30),
            statusIsPushed: Bool = false,
            seesPresence: Bool = true,
            retract: RetractRule = RetractRule()
        ) {
            self.pollInterval = pollInterval
            self.debounce = debounce
            self.statusIsPushed = statusIsPushed
            self.seesPresence = seesPresence
            self.retract = retract
        }
    }

    /// The ticket in hand: its id and the business day that issued it.
    public struct Ticket: Sendable, Equatable {
        public var id: TicketID
        public var issuedOn: BusinessDay

        public init(id: TicketID, issuedOn: BusinessDay) {
            self.id = id
            self.issuedOn = issuedOn
        }
    }

    public enum RetractOutcome: Sendable, Equatable {
        /// The ticket went back in.
        case retracted
        /// It stayed out (the printer's retract function is off, or the command is not this model's).
        case kept
        /// It was gone before the command went: a customer took it.
        case notPresent
        /// It left the mouth, and the printer cannot tell whether it went back in or a customer took it then.
        case gone
    }

    public enum Input: Sendable, Equatable {
        /// The printer is connected; `canRetract`: it can pull a presented ticket back in and show that it did.
        case connected(canRetract: Bool)
        case looked(Look)
        /// The answer to `fetchTicket`: the ticket not taken yet, how far it got, and whether the sensor sees it
        /// in the printer now (nil: it cannot tell).
        case ticket(Ticket, TicketPrintState, present: Bool?, at: Duration, time: Timestamp)
        /// The answer to `fetchTicket(issueNew: false)`: no ticket is in hand.
        case noTicket
        /// The answer to `print`: whether the printer can still print after the bytes went, and what its sensor
        /// said since, oldest first.
        case sent(TicketID, canPrint: Bool, presence: [Bool], at: Duration)
        case takeRecorded(TicketID)
        case retracted(TicketID, RetractOutcome)
        /// The printer's connection was lost (what it had in hand is looked for when it is back).
        case connectionLost
    }

    public enum Action: Sendable, Equatable {
        /// Fetch the ticket not taken yet from the store, or (`issueNew`) issue the next; answer with `.ticket`, or
        /// `.noTicket` when there is none and none may be issued.
        case fetchTicket(issueNew: Bool)
        /// Send the ticket's bytes (after clearing the printer's buffer of an interrupted print); answer `.sent`.
        case print(TicketID, clearBufferFirst: Bool)
        case markPrinted(TicketID)
        /// The ticket waits in the printer now (`printedNow`: just cut; else found there).
        case presented(TicketID, printedNow: Bool)
        /// A fault struck before the cut: clear the printer's buffer (so it does not finish the ticket when the
        /// fault clears), record that the ticket must go again.
        case interrupted(TicketID)
        /// Record the take (`whileAway`: it happened while the station was not watching); answer `.takeRecorded`.
        case recordTake(TicketID, at: Timestamp, whileAway: Bool)
        /// Pull the waiting ticket back in, if it is still there; answer `.retracted`.
        case retract(TicketID, RetractRule.Reason)
        /// The retracted ticket's code is never called: void it.
        case void(TicketID, RetractRule.Reason)
        /// The ticket left the printer, perhaps in a customer's hand: it is no longer the printer's, and stays
        /// valid (never voided).
        case setAside(TicketID, RetractRule.Reason)
        /// Look again after this long (a stop or a take request may end the pause early).
        case pause(Duration)
    }

    enum Phase: Sendable, Equatable {
        /// No ticket in hand: ask the store for one.
        case none
        /// No ticket in hand, and the store hands out none now: wait for its window.
        case closed
        /// Asked the store (`fetchTicket`), no answer yet.
        case fetching
        case printing(Ticket)
        /// Cut, waiting to be taken since `presentedAt`.
        case waiting(Ticket, presentedAt: Duration)
        /// Taken at `time`, not written yet.
        case taking(Ticket, time: Timestamp, whileAway: Bool)
        case retracting(Ticket, presentedAt: Duration, reason: RetractRule.Reason)
    }

    public let settings: Settings
    private(set) var phase: Phase = .none
    private(set) var tearOff: TearOffMachine
    /// A fault interrupted a print: the next print clears the printer's buffer first (set until a print's
    /// bytes have gone and the printer answered).
    private(set) var clearBufferFirst = false
    /// The waiting ticket the printer would not retract: it stays, and is not tried again.
    private(set) var retractRefused: TicketID?
    /// When a ticket last went back in as outdated.
    private var lastOutdated: Duration?
    /// When the tear-off machine wants to look again (a debounce is running).
    private var wakeAt: Duration?
    /// The connected printer can retract (see ``Input/connected(canRetract:)``).
    private var canRetract = false

    public init(settings: Settings) {
        self.settings = settings
        tearOff = TearOffMachine(debounce: settings.debounce)
    }

    /// The station waits for the store to hand out tickets again (closed, before its window, past its closing's
    /// last tickets), with no ticket in hand.
    public var handsOutNone: Bool {
        if case .closed = phase { return true }
        return false
    }

    /// The ticket cut and waiting in the printer, if any.
    public var waitingTicket: TicketID? {
        switch phase {
        case .waiting(let ticket, _), .retracting(let ticket, _, _): return ticket.id
        case .none, .closed, .fetching, .printing, .taking: return nil
        }
    }

    /// How long until the next look is due: one poll interval, or less when the tear-off debounce ends sooner.
    public func untilNextLook(at now: Duration) -> Duration {
        guard let wakeAt else { return settings.pollInterval }
        return min(max(wakeAt - now, .milliseconds(1)), settings.pollInterval)
    }

    /// While a fault stops printing: look again soon (the roll's last ticket can still be taken).
    private var faultPause: Duration { min(settings.pollInterval, .milliseconds(200)) }

    /// While the store hands out no tickets: a look a second (faults still show, the window opens on time).
    static let closedPause: Duration = .seconds(1)

    public mutating func handle(_ input: Input) -> [Action] {
        switch input {
        case .connected(let canRetract):
            self.canRetract = canRetract
            return []
        case .looked(let look): return looked(look)
        case .ticket(let ticket, let state, let present, let at, let time):
            return found(ticket, state, present: present, at: at, time: time)
        case .noTicket:
            guard phase == .fetching else { return [] }
            phase = .closed
            return [.pause(Self.closedPause)]
        case .sent(let id, let canPrint, let presence, let at): return sent(id, canPrint: canPrint, presence, at: at)
        case .takeRecorded(let id):
            guard case .taking(let ticket, _, _) = phase, ticket.id == id else { return [] }
            phase = .none
            return []
        case .retracted(let id, let outcome): return retracted(id, outcome)
        case .connectionLost:
            // Whatever was in hand is asked of the store again when the printer is back (see the type's rules).
            if case .taking = phase { return [] }
            stopWaiting()
            return []
        }
    }

    // MARK: - Looks

    private mutating func looked(_ look: Look) -> [Action] {
        switch phase {
        case .taking(let ticket, let time, let whileAway):
            // First, every turn, until it is written.
            return [.recordTake(ticket.id, at: time, whileAway: whileAway)]
        case .none, .fetching, .printing:
            // `.fetching`/`.printing` on a look: the last answer never came (storage full, an error). The
            // store's record says how far that ticket got, so asking again never prints one twice.
            guard look.canPrint else {
                phase = .none
                return [.pause(faultPause)]
            }
            phase = .fetching
            return [.fetchTicket(issueNew: look.handsOut)]
        case .closed:
            guard look.handsOut else { return [.pause(Self.closedPause)] }
            phase = .none
            return looked(look)
        case .retracting(let ticket, let presentedAt, _):
            phase = .waiting(ticket, presentedAt: presentedAt)
            return looked(look)
        case .waiting(let ticket, let presentedAt):
            var actions = watch(ticket, look)
            if case .taking = phase { return actions }
            if look.canPrint, canRetract, retractRefused != ticket.id,
                let reason = settings.retract.reason(
                    presentedAt: presentedAt,
                    now: look.at,
                    issuedOn: ticket.issuedOn,
                    today: look.today,
                    pastClosing: look.pastClosing,
                    outdated: look.outdated && lastOutdated.map { look.at - $0 >= RetractRule.outdatedSpacing } ?? true
                )
            {
                if reason == .outdated { lastOutdated = look.at }
                phase = .retracting(ticket, presentedAt: presentedAt, reason: reason)
                return actions + [.retract(ticket.id, reason)]
            }
            if !look.canPrint {
                actions.append(.pause(faultPause))
            } else if !settings.statusIsPushed {
                actions.append(.pause(untilNextLook(at: look.at)))
            }
            return actions
        }
    }

    /// Feeds the control API and the sensor to the tear-off machine; a take it decides is recorded first.
    private mutating func watch(_ ticket: Ticket, _ look: Look) -> [Action] {
        var decided: [TearOffMachine.Action] = []
        if look.takeRequested { decided += tearOff.handle(.takeRequested(at: look.at)) }
        for present in look.presence {
            decided += tearOff.handle(.sensor(present: present, at: look.at))
        }
        decided += tearOff.handle(.tick(at: look.at))
        wakeAt = nil
        for action in decided {
            switch action {
            case .taken:
                phase = .taking(ticket, time: look.time, whileAway: false)
                return [.recordTake(ticket.id, at: look.time, whileAway: false)]
            case .wake(let due):
                wakeAt = due
            }
        }
        return []
    }

    // MARK: - Answers

    private mutating func found(
        _ ticket: Ticket,
        _ state: TicketPrintState,
        present: Bool?,
        at: Duration,
        time: Timestamp
    ) -> [Action] {
        guard phase == .fetching else { return [] }
        if state == .notSent {
            phase = .printing(ticket)
            return [.print(ticket.id, clearBufferFirst: clearBufferFirst)]
        }
        // Sent before a restart or a lost connection (also a reprint the connection cut short, which may have
        // reached its cut): is it still in the printer?
        if settings.seesPresence, present == false {
            phase = .taking(ticket, time: time, whileAway: true)
            return [.recordTake(ticket.id, at: time, whileAway: true)]
        }
        startWaiting(ticket, at: at, presence: [true])
        return (state == .sending ? [.markPrinted(ticket.id)] : []) + [.presented(ticket.id, printedNow: false)]
    }

    private mutating func sent(_ id: TicketID, canPrint: Bool, _ presence: [Bool], at: Duration) -> [Action] {
        guard case .printing(let ticket) = phase, ticket.id == id else { return [] }
        clearBufferFirst = false
        // A fault after the cut (a roll usually ends that way) leaves the ticket whole in the presenter, or
        // already in a customer's hand: it was printed.
        guard canPrint || presence.contains(true) else {
            clearBufferFirst = true
            phase = .none
            return [.interrupted(id)]
        }
        startWaiting(ticket, at: at, presence: presence)
        return [.markPrinted(id), .presented(id, printedNow: true)]
    }

    /// The ticket waits in the printer from `at`. What the sensor said at that same moment cannot end a
    /// debounce yet (it needs time to pass), so the tear-off machine's answers to it are not needed.
    private mutating func startWaiting(_ ticket: Ticket, at: Duration, presence: [Bool]) {
        tearOff = TearOffMachine(debounce: settings.debounce)
        _ = tearOff.handle(.printed(ticket.id, at: at))
        for sample in presence {
            _ = tearOff.handle(.sensor(present: sample, at: at))
        }
        wakeAt = nil
        phase = .waiting(ticket, presentedAt: at)
    }

    /// No ticket in hand any more: the tear-off machine and its wake-up start again with the next one.
    private mutating func stopWaiting() {
        phase = .none
        tearOff = TearOffMachine(debounce: settings.debounce)
        wakeAt = nil
    }

    private mutating func retracted(_ id: TicketID, _ outcome: RetractOutcome) -> [Action] {
        guard case .retracting(let ticket, let presentedAt, let reason) = phase, ticket.id == id else { return [] }
        switch outcome {
        case .retracted:
            stopWaiting()
            return [.void(id, reason)]
        case .kept:
            retractRefused = id
            phase = .waiting(ticket, presentedAt: presentedAt)
            return []
        case .notPresent:
            // Taken a moment ago: the next look's sensor records it.
            phase = .waiting(ticket, presentedAt: presentedAt)
            return []
        case .gone:
            stopWaiting()
            return [.setAside(id, reason)]
        }
    }
}

/// How far a ticket got towards the printer (kept in the station's store).
public enum TicketPrintState: Int, Sendable, Equatable {
    /// Issued, bytes not sent (or a fault interrupted the print and it must go again).
    case notSent = 0
    /// Recorded just before its bytes went out: after a crash it may be in the printer, or taken.
    case sending = 1
    /// The printer confirmed it (cut).
    case printed = 2
}
