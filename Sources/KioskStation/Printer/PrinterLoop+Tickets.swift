import Drivers
import Foundation
import KioskCore
import StationStore

/// The printer station's actions on tickets: issue, print, mark, present, retract, void, record the take.
extension PrinterLoop {
    func storageHasRoom() {
        guard storageFault != nil else { return }
        storageFault = nil
        logger.notice("storage has room again: printing resumes")
        station.publish { $0.storageFull = false }
    }

    /// The line as a ticket taken now would join it: the queue, the people ahead, and the wait it would be told —
    /// one roll of the line, shared by a look's checks (``promiseBroken(_:at:)``, ``lastTicketsPassed(_:at:)``).
    struct LineEnd {
        let queue: QueueState
        let ahead: Int
        let wait: WaitRange
    }

    func lineEnd(at time: Timestamp) -> LineEnd {
        let queue = station.queue.snapshot
        let ahead = queue.lineLength(at: time)
        return LineEnd(
            queue: queue,
            ahead: ahead,
            wait: station.days.schedule.estimator.wait(position: ahead, in: queue, at: time)
        )
    }

    /// Whether what the waiting ticket printed no longer holds for a holder who took it now (``TicketPromise``);
    /// the line is rolled only when a promise is kept.
    func promiseBroken(_ end: @autoclosure () -> LineEnd, at time: Timestamp) -> Bool {
        guard let promise, promise.id == machine.waitingTicket else { return false }
        let end = end()
        return !promise.promise.holds(
            ahead: end.ahead,
            wait: max(end.wait.point - end.queue.untilOpen(at: time), .zero)
        )
    }

    /// The day's closing that a new ticket's wait would pass, where the store stops issuing then
    /// (``LastTickets``): nil while it hands them out. The line is rolled only where the store stops so.
    func lastTicketsPassed(_ end: @autoclosure () -> LineEnd, at time: Timestamp) -> Timestamp? {
        guard station.days.schedule.stopTicketsPastClosing else { return nil }
        let end = end()
        return LastTickets.closingPassed(by: end.wait.point, queue: end.queue, at: time)
    }

    /// No ticket in hand, and the store hands out none now: the status says until when, or that the wait passes
    /// closing.
    func closed() {
        let now = station.clock.now()
        if let closes = lastTicketsPassed(lineEnd(at: now), at: now) {
            let first = station.status.state != .pastClosing
            station.publish {
                $0.state = .pastClosing
                $0.waitingTicket = nil
                $0.ticketsFrom = nil
                $0.opensAt = nil
            }
            if first {
                logger.notice(
                    "no more tickets today: the wait passes closing",
                    metadata: ["closes": "\(Timestamp.localText(closes, zone: station.days.zone))"]
                )
            }
            return
        }
        guard case .closed(_, let opens, let from) = station.days.schedule.calendar.phase(at: now) else { return }
        let first = station.status.state != .closed
        station.publish {
            $0.state = .closed
            $0.waitingTicket = nil
            $0.ticketsFrom = from.milliseconds
            $0.opensAt = opens.milliseconds
        }
        if first {
            let zone = station.days.zone
            logger.notice(
                "closed: no tickets until the store's window",
                metadata: [
                    "tickets_from": "\(Timestamp.localText(from, zone: zone))",
                    "opens": "\(Timestamp.localText(opens, zone: zone))",
                ]
            )
        }
    }

    func issueNext() throws -> IssuedTicket {
        // Only a ticket that can be recorded, and whose take can be, is handed out.
        try station.store.requireRoomForNewTicket()
        try station.days.startDayIfDue()
        let now = station.clock.now()
        let day = station.days.businessDay(at: now)
        // The wait it tells: the line's end now (what it is printed with, and kept to measure the estimate by).
        let queue = station.queue.snapshot
        let told = station.days.schedule.estimator.wait(position: queue.lineLength(at: now), in: queue, at: now)
        let ticket = try station.log.issueTicket(prefix: config.printer.codePrefix, day: day, at: now, told: told) {
            TicketCodec.encode($0, signer: signer, prefix: config.store.statusURL)
        }
        // Numbers run from 1 without gaps within a day (a voided ticket keeps its number): the new ticket's
        // number is how many this printer issued today, without counting the day's tickets on every issue.
        station.publish { $0.ticketsToday = ticket.ticket.code.number }
        logger.debug("ticket issued", metadata: ["code": "\(ticket.ticket.code)", "id": "\(ticket.ticket.id)"])
        return ticket
    }

    /// Sends the ticket's bytes; answers what the sensor saw since (`sent`), and the status to publish after.
    func print(_ ticket: IssuedTicket, on device: PrinterDevice, clearBufferFirst: Bool) throws -> Outcome {
        let queue = station.queue.snapshot
        let time = station.clock.now()
        // Those in line now: a booking whose slot has not started will join behind whoever takes this one.
        let ahead = queue.lineLength(at: time)
        let calendar = station.days.schedule.calendar
        // What it was told when issued (a reprint tells the same); before opening, counted from the opening.
        let untilOpen = queue.untilOpen(at: time)
        let told =
            ticket.told
            ?? station.days.schedule.estimator.wait(position: ahead, in: queue, at: time)
        var printout = TicketPrintout(
            storeName: station.days.schedule.storeName,
            code: ticket.ticket.code,
            qrPayload: ticket.qr,
            peopleAhead: ahead,
            estimatedWait: max(told.point - untilOpen, .zero),
            estimatedRange: max(told.low - untilOpen, .zero)...max(told.high - untilOpen, .zero),
            printedAt: Timestamp.localText(ticket.ticket.issuedAt, zone: station.days.zone),
            opensAt: queue.opensAt(after: time).map { calendar.zone.clockText($0) },
            footer: station.days.schedule.footer,
            logo: logo
        )
        // A day or more away, the opening's weekday, named in each language the ticket is printed in.
        printout.opensOn = queue.opensAt(after: time).flatMap { calendar.weekday(of: $0, from: time) }
        if let pause = queue.pauses.holding(at: time) {
            printout.paused = true
            printout.pausedUntil = pause.end.map { calendar.zone.clockText($0) }
        }
        printout.largePrint = station.days.schedule.largePrint
        printout.languages = station.days.schedule.languages
        printout.columns = device.profile.columns
        // What it says is kept true: pulled back when it stops being so, or, where the printer cannot, not said.
        printout.placeAtTearOff = !device.canRetract
        promise =
            device.canRetract
            ? (
                ticket.ticket.id,
                TicketPromise(ahead: ahead, wait: printout.estimatedWait, range: printout.estimatedRange)
            )
            : nil
        var bytes = try encoder.encode(TicketLayout.document(printout))
        if clearBufferFirst {
            // Drop what is left of the interrupted print in the printer's buffer, then print it whole.
            bytes = EscPos.clearBuffers + bytes
            logger.notice("reprinting the interrupted ticket", metadata: ["code": "\(ticket.ticket.code)"])
        }
        station.publish {
            $0.state = .printing
            $0.waitingTicket = ticket.ticket.code.description
            $0.ticketsFrom = nil
            $0.opensAt = nil
        }
        _ = device.drainReports()  // what the sensor said before this ticket is not about it
        // Durable before the bytes go: after a crash from here on, the ticket may be in the printer.
        try station.log.mark(ticket.ticket.id, .sending)
        try device.send(bytes)
        let after = try device.queryStatus()
        // What the sensor said since the bytes went (ASB pushes and this reply), oldest first.
        let samples = try device.presenceSamples(by: sensor, latest: after)
        if !after.canPrint && samples.contains(true) {
            logger.notice(
                "printer stopped after the ticket was cut",
                metadata: ["code": "\(ticket.ticket.code)", "faults": "\(after.faults.map(\.rawValue))"]
            )
        }
        let answer = PrinterStationMachine.Input.sent(
            ticket.ticket.id,
            canPrint: after.canPrint,
            presence: samples,
            at: now
        )
        return Outcome(answer: answer, then: after)
    }

    /// A fault struck before the cut. First clear the printer's buffer, so it does not finish the ticket by
    /// itself when the fault clears; then record that it must go again (also after a restart); then tell.
    func interrupted(_ ticket: IssuedTicket, on device: PrinterDevice) throws {
        try device.clearBuffers()
        try station.log.mark(ticket.ticket.id, .notSent)
        logger.warning(
            "ticket print interrupted",
            metadata: ["code": "\(ticket.ticket.code)", "faults": "\(device.status.faults.map(\.rawValue))"]
        )
    }

    /// Marks a cut ticket printed. If that cannot be written (storage full), the ticket stays `sending` on
    /// disk — after a restart the station looks for it in the printer — and is never printed again from here:
    /// it is in the printer, or in a customer's hand.
    func recordPrinted(_ ticket: IssuedTicket) {
        do {
            try station.store.withReserve { try station.log.mark(ticket.ticket.id, .printed) }
            current?.state = .printed
        } catch {
            logger.error(
                "cannot record that the ticket was printed",
                metadata: ["code": "\(ticket.ticket.code)", "error": "\(error)"]
            )
        }
    }

    /// The ticket waits in the printer now: just cut (`printedNow`), or found there after a restart.
    func presented(_ ticket: IssuedTicket, printedNow: Bool) {
        if printedNow {
            logger.debug("ticket printed", metadata: ["code": "\(ticket.ticket.code)"])
            station.metrics.ticketsPrinted.increment()
            station.publish { $0.ticketsSincePaperLoad += 1 }
            if let takenAt {
                station.metrics.tearOffToNextTicket.record(ContinuousClock.now - takenAt)
                self.takenAt = nil
            }
        }
        station.publish {
            $0.state = .ready
            $0.waitingTicket = ticket.ticket.code.description
        }
    }

    /// Pulls the waiting ticket back in, if it is still out (taken a moment ago: the sensor records it).
    func retract(
        _ ticket: IssuedTicket,
        reason: RetractRule.Reason,
        on device: PrinterDevice
    ) throws -> PrinterStationMachine.RetractOutcome {
        guard try device.queryStatus()[.ticketPresent] else { return .notPresent }
        switch try device.retractPresentedTicket() {
        case .retracted: return .retracted
        case .gone: return .gone
        case .taken: return .notPresent
        case .stayed: break
        }
        logger.warning(
            "the printer did not retract the ticket",
            metadata: [
                "code": "\(ticket.ticket.code)", "reason": "\(reason.rawValue)",
                "action": .string(
                    "turn the presenter's retract function on in the printer's setup, or check the "
                        + "profile's retract command for this model"
                ),
            ]
        )
        return .kept
    }

    /// The retracted ticket's code is never called: its void is recorded; the next look presents a fresh one.
    func void(_ ticket: IssuedTicket, reason: RetractRule.Reason, on device: PrinterDevice) throws {
        try outOfThePrinter(ticket, on: device) { try station.log.voidTicket(ticket.ticket, at: $0) }
        logger.notice(
            "ticket retracted and voided",
            metadata: ["code": "\(ticket.ticket.code)", "reason": "\(reason.rawValue)"]
        )
    }

    /// The ticket left the printer's mouth as it was pulled back, and the printer cannot tell whether it went
    /// back in or a customer took it at that instant: it is no longer the printer's, and it stays valid (never
    /// voided) — its holder, if there is one, is admitted at the door and joins the line with the scan.
    func setAside(_ ticket: IssuedTicket, reason: RetractRule.Reason, on device: PrinterDevice) throws {
        try outOfThePrinter(ticket, on: device) { try station.log.setAside(ticket.ticket, at: $0) }
        logger.notice(
            "ticket pulled back or taken at that instant: kept valid",
            metadata: [
                "code": "\(ticket.ticket.code)", "reason": "\(reason.rawValue)",
                "why": "this printer's status cannot tell a retracted ticket from a taken one",
            ]
        )
    }

    /// A retract took the ticket out of the printer's mouth: `record` writes what became of it (at now), and
    /// the next look presents a fresh one.
    private func outOfThePrinter(
        _ ticket: IssuedTicket,
        on device: PrinterDevice,
        record: (Timestamp) throws -> Bool
    ) throws {
        _ = device.drainReports()  // the sensor's "absent" is the retraction (or a take nobody can tell from it)
        _ = try record(station.clock.now())
        current = nil
        station.publish {
            $0.ticketsRetracted += 1
            $0.waitingTicket = nil
            $0.state = .printing
        }
    }

    /// Records the waiting ticket's take. When it cannot be written (storage full, even with the reserve
    /// given back), this throws and the machine asks again first on every turn until it can be: no new ticket
    /// is issued meanwhile, and its code is never printed again.
    func recordTaken(_ ticket: IssuedTicket, at: Timestamp, whileAway: Bool) throws {
        if whileAway {
            logger.notice("ticket was taken while kioskd was not watching", metadata: ["code": "\(ticket.ticket.code)"])
        }
        try station.log.recordTaken(ticket.ticket, at: at)
        _ = machine.handle(.takeRecorded(ticket.ticket.id))
        station.metrics.ticketsTaken.increment()
        takenAt = .now
        current = nil
        station.publish {
            $0.lastTaken = ticket.ticket.code.description
            $0.waitingTicket = nil
            $0.state = .printing
        }
        logger.info("ticket taken", metadata: ["code": "\(ticket.ticket.code)"])
        let phrase = Self.tornOff(
            ticket.ticket,
            queue: station.queue.snapshot,
            estimator: station.days.schedule.estimator,
            at: station.clock.now()
        )
        station.voice?.say(phrase)
    }

    /// What the voice says as `ticket` is torn off: its number and the wait from its place now — the line it
    /// joined at the take, not the one its paper was printed for (app tickets may have come in while it waited in
    /// the presenter); before opening, no wait (the paper counts from the opening).
    static func tornOff(
        _ ticket: Ticket,
        queue: QueueState,
        estimator: WaitEstimator,
        at now: Timestamp
    )
        -> Announcement
    {
        guard queue.untilOpen(at: now) == .zero else { return .yourNumber(ticket.code, wait: nil) }
        let position = queue.position(of: ticket.id, at: now) ?? queue.lineLength(at: now)
        return .yourNumber(ticket.code, wait: estimator.wait(position: position, in: queue, at: now).point)
    }
}
