import Drivers
import Foundation
import KioskCore
import Logging

/// The printer station's blocking loop, on its own thread: connect, watch status, keep a ticket waiting,
/// feed the sensor to the tear-off machine, record tear-offs, print the next ticket.
///
/// Order of durability: a ticket is issued (number, event, signed QR) in one FULL-synced transaction before
/// its bytes go out; it is marked printed once the printer confirms; a tear-off is recorded before the next
/// ticket is issued. A restart therefore finds at most one ticket not taken, and knows whether it printed.
final class PrinterLoop: @unchecked Sendable {
    // @unchecked Sendable: built on the service's task, then handed to one thread that alone uses it.
    let station: PrinterStation
    let profile: PrinterProfile
    let address: PrinterAddress
    let encoder: EscPosEncoder
    let signer: TicketSigner
    let sensor: KioskConfig.TakeSensor
    let logo: Bitmap?
    var logger: Logger { station.logger }
    var config: KioskConfig { station.config }

    private var machine: TearOffMachine
    private let started = ContinuousClock.now
    private var device: PrinterDevice?
    private var backoff = ReconnectBackoff()
    /// Why the printer could not be reached, while it cannot (logged once per cause).
    private var unreachable: String?
    /// Notices the printer plugged back in (made when it is first not found; none for network printers).
    private var arrivalWatch: (any ArrivalWatch)?
    /// A ticket whose print a fault interrupted: printed again, after the printer's buffer is cleared.
    private var interrupted: TicketID?
    private var current: IssuedTicket?
    private var lastFaults: [StatusCondition] = []
    private var lastFullQuery = ContinuousClock.now
    /// When the tear-off machine wants to look again (a debounce is running).
    private var nextWake: Duration?
    /// When the last tear-off was recorded, until the next ticket is printed (the tear-off latency metric).
    private var takenAt: ContinuousClock.Instant?
    /// When the waiting ticket was taken, while that take could not be written yet (storage full): it is
    /// written before anything else happens, and no new ticket is issued until it is.
    private var unrecordedTake: Timestamp?
    /// The storage fault last logged (once per cause, not once a second).
    private var storageFault: String?
    /// When the waiting ticket was seen in the presenter (printed, or found there after a restart).
    private var presentedAt: Duration?
    /// When a waiting ticket is pulled back in and voided (``RetractRule``).
    private let retractRule: RetractRule
    /// The waiting ticket the printer would not retract: it stays, and is not tried again.
    private var retractRefused: TicketID?

    init(station: PrinterStation) throws {
        self.station = station
        let printer = station.config.printer
        profile = try PrinterProfile.load(named: printer.profile, extraDirectories: printer.profileDirectories)
        address = try PrinterAddress(parsing: printer.address, defaults: profile.transport)
        encoder = EscPosEncoder(profile: profile, qrMode: printer.qr)
        signer = try station.store.signingKey()
        logo = printer.logo.isEmpty ? nil : try PBMImage.load(path: printer.logo)
        sensor = Self.resolve(printer.takeSensor, profile: profile, address: address)
        machine = TearOffMachine(debounce: printer.debounce)
        retractRule = RetractRule(after: printer.retractAfter)
        if printer.retractAfter != nil, profile.retract == nil {  // a profile's retract needs its presenter
            throw PrinterError(
                .profile,
                device: profile.id,
                "\(profile.name) cannot retract a ticket — remove [printer] retract_after_seconds, or use a profile "
                    + "with a retract command (citizen-ppu-700, custom-vkp80iii)"
            )
        }
    }

    /// `auto`: ASB when the profile pushes the presenter bit, polling when it can be asked, else manual.
    static func resolve(
        _ wanted: KioskConfig.TakeSensor,
        profile: PrinterProfile,
        address: PrinterAddress
    ) -> KioskConfig.TakeSensor {
        guard wanted == .auto else { return wanted }
        if case .cups = address { return .manual }
        if profile.automaticStatusBack && profile.status.conditions(of: .asb).contains(.ticketPresent) { return .asb }
        if profile.ticketPresentQuery != nil { return .statusPoll }
        return .manual
    }

    var now: Duration { ContinuousClock.now - started }

    func run() {
        let today = (try? station.store.issuedCount(prefix: config.printer.codePrefix, day: businessDay)) ?? 0
        station.publish { $0.ticketsToday = today }
        logger.info(
            "printer station started",
            metadata: ["printer": "\(address)", "profile": "\(profile.id)", "take_sensor": "\(sensor.rawValue)"]
        )
        while !station.signal.isStopped {
            turn()
            station.heartbeat.beat()
        }
        device?.close()
    }

    /// One turn of the loop: connect, or one step with the printer.
    private func turn() {
        guard let device = connectedDevice() else { return }
        do {
            try step(device)
        } catch let error as PrinterError
            where error.code == .disconnected || error.code == .timeout || error.code == .io
        {
            lost(error)
        } catch  where LocalStore.isOutOfSpace(error) {
            let full = station.store.storageFull(error)
            if storageFault != full.directory {
                storageFault = full.directory
                logger.error("storage full: no new tickets", metadata: ["action": "\(full)"])
            }
            station.publish {
                $0.state = .fault
                $0.action = full.description
                $0.storageFull = true
            }
            station.signal.sleep(.milliseconds(500))
        } catch {
            logger.error("printer station error", metadata: ["error": "\(error)"])
            station.publish {
                $0.state = .fault
                $0.action = "\(error)"
            }
            station.signal.sleep(.seconds(1))
        }
    }

    // MARK: - Connection

    private func connectedDevice() -> PrinterDevice? {
        if let device { return device }
        let candidate = PrinterDevice(transport: address.makeTransport(), profile: profile)
        do {
            try candidate.open()
            if sensor == .asb { try candidate.enableAutomaticStatusBack() }
            device = candidate
            backoff.reset()
            unreachable = nil
            arrivalWatch = nil  // its queued notices are about this connection
            logger.notice("printer connected", metadata: ["printer": "\(address)"])
            return candidate
        } catch {
            candidate.close()
            station.publish {
                $0.state = .disconnected
                $0.action = error.message
            }
            // Once per cause, not once per retry: an unplugged printer would fill the journal.
            if unreachable != error.message {
                unreachable = error.message
                logger.warning(
                    "printer not reachable",
                    metadata: ["printer": "\(address)", "error": "\(error.message)"]
                )
            }
            waitBeforeRetry(after: error)
            return nil
        }
    }

    /// Sleeps before the next connection attempt. When the printer was not found, its coming back (libusb
    /// hotplug, a device node appearing) ends the wait at once, so a replugged printer prints within the 2 s the
    /// station promises, whatever the backoff had grown to.
    private func waitBeforeRetry(after error: PrinterError) {
        let notFound = error.code == .notFound
        if notFound, arrivalWatch == nil { arrivalWatch = address.makeArrivalWatch() }
        if backoff.wait(on: station.signal, watch: notFound ? arrivalWatch : nil) {
            logger.info("the printer is plugged in again", metadata: ["printer": "\(address)"])
        }
    }

    private func lost(_ error: PrinterError) {
        logger.warning("printer connection lost", metadata: ["printer": "\(address)", "error": "\(error.message)"])
        device?.close()
        device = nil
        station.publish {
            $0.state = .disconnected
            $0.action = error.message
            $0.connectionsLost += 1
        }
        // A ticket not confirmed yet may not have reached the printer: print it again (after clearing the
        // printer's buffer of any half-received command). A confirmed one is looked for when the printer is back.
        if let ticket = current, ticket.state == .sending {
            interrupted = ticket.ticket.id
            do {
                try station.store.mark(ticket.ticket.id, .notSent)
            } catch {
                logger.error("cannot record the interrupted ticket", metadata: ["error": "\(error)"])
            }
        }
        machine = TearOffMachine(debounce: config.printer.debounce)
        current = nil
    }

    // MARK: - One step

    private func step(_ device: PrinterDevice) throws {
        if unrecordedTake != nil { try recordTaken() }
        let status = try readStatus(device)
        publishStatus(status)
        guard status.canPrint else {
            // No new ticket while paper is out or the cover is open, but the one already waiting in the
            // presenter (often the roll's last) can still be taken, and is recorded when it is.
            if machine.waitingTicket != nil { try watchForTake(device, status: status) }
            station.signal.sleep(min(config.printer.pollInterval, .milliseconds(200)))
            return
        }
        if machine.waitingTicket == nil {
            try ensureTicketWaiting(device, status: status)
            return
        }
        if try retractIfDue(device) { return }
        try watchForTake(device, status: status)
        if machine.waitingTicket != nil && sensor != .asb {
            station.signal.sleep(untilNextLook)
        }
    }

    /// Feeds the control API and the sensor to the tear-off machine and records a take it decides.
    private func watchForTake(_ device: PrinterDevice, status: PrinterStatus) throws {
        var actions: [TearOffMachine.Action] = []
        if station.signal.takeNudge() { actions += machine.handle(.takeRequested(at: now)) }
        for present in try presenceSamples(device, status: status) {
            actions += machine.handle(.sensor(present: present, at: now))
        }
        actions += machine.handle(.tick(at: now))
        nextWake = nil
        for action in actions {
            switch action {
            case .taken: try recordTaken()
            case .wake(let at): nextWake = at
            }
        }
    }

    /// Status for this step. Polling modes ask every time; ASB mode reads pushes (waiting up to one poll
    /// interval for one) and asks outright once a second, which also notices a dead connection.
    private func readStatus(_ device: PrinterDevice) throws -> PrinterStatus {
        if sensor == .asb && machine.waitingTicket != nil && ContinuousClock.now - lastFullQuery < .seconds(1) {
            _ = try device.readPushedStatus(timeout: untilNextLook)
            return device.status
        }
        lastFullQuery = .now
        return try device.queryStatus()
    }

    /// What the sensor said since the last look, oldest first. Status reports (polls and ASB pushes) are all
    /// replayed, so a ticket presented and taken between two looks still counts as seen.
    private func presenceSamples(_ device: PrinterDevice, status: PrinterStatus) throws -> [Bool] {
        switch sensor {
        case .statusPoll, .asb, .auto:
            guard profile.presenter else { return [] }
            let samples = device.drainReports().compactMap { $0.conditions[.ticketPresent] }
            return samples.isEmpty ? [status[.ticketPresent]] : samples
        case .cts, .dsr, .manual:
            return try presence(device, status: status).map { [$0] } ?? []
        }
    }

    /// One poll interval, or less when the tear-off machine is due sooner.
    private var untilNextLook: Duration {
        let poll = config.printer.pollInterval
        guard let wake = nextWake else { return poll }
        return min(max(wake - now, .milliseconds(1)), poll)
    }

    private func presence(_ device: PrinterDevice, status: PrinterStatus) throws -> Bool? {
        switch sensor {
        case .statusPoll, .asb, .auto:
            return profile.presenter ? status[.ticketPresent] : nil
        case .cts, .dsr:
            guard let serial = device.transport as? SerialTransport else { return nil }
            let lines = try serial.modemLines()
            return lines & (sensor == .cts ? TIOCM_CTS : TIOCM_DSR) != 0
        case .manual:
            return nil
        }
    }

    /// Whether this station can see a ticket sitting in the printer.
    private var canSeePresence: Bool {
        switch sensor {
        case .statusPoll, .asb, .auto: return profile.presenter
        case .cts, .dsr: return true
        case .manual: return false
        }
    }

    // MARK: - Tickets

    private func ensureTicketWaiting(_ device: PrinterDevice, status: PrinterStatus) throws {
        let ticket = try current ?? station.store.waitingTicket(prefix: config.printer.codePrefix) ?? issueNext()
        if storageFault != nil {
            storageFault = nil
            logger.notice("storage has room again: printing resumes")
            station.publish { $0.storageFull = false }
        }
        current = ticket
        guard ticket.state != .notSent, interrupted != ticket.ticket.id else {
            try print(ticket, on: device)
            return
        }
        // Sent before a restart or reconnect: is it still in the printer?
        if canSeePresence, let present = try presence(device, status: status), !present {
            logger.notice("ticket was taken while kioskd was not watching", metadata: ["code": "\(ticket.ticket.code)"])
            try recordTaken()
            return
        }
        if ticket.state == .sending { try station.store.mark(ticket.ticket.id, .printed) }
        current?.state = .printed
        _ = machine.handle(.printed(ticket.ticket.id, at: now))
        _ = machine.handle(.sensor(present: true, at: now))
        presentedAt = now
        station.publish {
            $0.state = .ready
            $0.waitingTicket = ticket.ticket.code.description
        }
    }

    /// Today, as the store counts days (they start at the opening time).
    private var businessDay: BusinessDay { station.days.businessDay(at: station.clock.now()) }

    private func issueNext() throws -> IssuedTicket {
        // Only a ticket that can be recorded, and whose take can be, is handed out.
        try station.store.requireRoomForNewTicket()
        try station.days.startDayIfDue()
        let now = station.clock.now()
        let day = businessDay
        let (ticket, event) = try station.store.issueTicket(
            store: config.store.id,
            device: config.device.id,
            prefix: config.printer.codePrefix,
            day: day,
            at: now
        ) { ticket in
            TicketCodec.encode(ticket, signer: signer, prefix: config.store.statusURL)
        }
        station.queue.apply(event)
        station.publish {
            $0.ticketsToday =
                (try? station.store.issuedCount(prefix: config.printer.codePrefix, day: day)) ?? $0.ticketsToday
        }
        logger.info("ticket issued", metadata: ["code": "\(ticket.ticket.code)", "id": "\(ticket.ticket.id)"])
        return ticket
    }

    private func print(_ ticket: IssuedTicket, on device: PrinterDevice) throws {
        let queue = station.queue.snapshot
        // Those in line now: a booking whose slot has not started will join behind whoever takes this one.
        let ahead = queue.lineLength(at: station.clock.now())
        let estimate = WaitEstimate(averageVisit: config.store.averageVisit, capacity: queue.capacity)
        let printout = TicketPrintout(
            storeName: config.store.name,
            code: ticket.ticket.code,
            qrPayload: ticket.qr,
            peopleAhead: ahead,
            estimatedWait: estimate.wait(peopleAhead: ahead, freePlaces: queue.freePlaces),
            printedAt: Timestamp.localText(ticket.ticket.issuedAt),
            footer: config.printer.footer,
            logo: logo
        )
        var bytes = try encoder.encode(TicketLayout.document(printout))
        if interrupted == ticket.ticket.id {
            // DLE ENQ 2: drop what is left of the interrupted print in the printer's buffer, then print it whole.
            bytes = [0x10, 0x05, 0x02] + bytes
            logger.notice("reprinting the interrupted ticket", metadata: ["code": "\(ticket.ticket.code)"])
        }
        station.publish {
            $0.state = .printing
            $0.waitingTicket = ticket.ticket.code.description
        }
        _ = device.drainReports()  // what the sensor said before this ticket is not about it
        // Durable before the bytes go: after a crash from here on, the ticket may be in the printer.
        try station.store.mark(ticket.ticket.id, .sending)
        try device.send(bytes)
        let after = try device.queryStatus()
        // What the sensor said since the bytes went (ASB pushes and this reply), oldest first.
        let samples = canSeePresence ? try presenceSamples(device, status: after) : []
        if !after.canPrint && samples.contains(true) {
            // The fault struck after the cut (a roll usually ends that way): the ticket came out whole and
            // waits in the presenter, or a customer already has it. It was printed; printing it again would put
            // its code in two hands.
            logger.notice(
                "printer stopped after the ticket was cut",
                metadata: ["code": "\(ticket.ticket.code)", "faults": "\(after.faults.map(\.rawValue))"]
            )
            recordPrinted(ticket)
            confirmPrinted(ticket, status: after, samples: samples, bytes: bytes.count)
            return
        }
        guard after.canPrint else {
            // First clear the printer's buffer, so it does not finish the ticket by itself when the fault
            // clears; then record that it must go again (also after a restart); then tell the operator.
            try device.send([0x10, 0x05, 0x02], timeout: .seconds(2))
            interrupted = ticket.ticket.id
            try station.store.mark(ticket.ticket.id, .notSent)
            publishStatus(after)
            logger.warning(
                "ticket print interrupted",
                metadata: ["code": "\(ticket.ticket.code)", "faults": "\(after.faults.map(\.rawValue))"]
            )
            return
        }
        recordPrinted(ticket)
        confirmPrinted(ticket, status: after, samples: samples, bytes: bytes.count)
    }

    /// Marks a cut ticket printed. If that cannot be written (storage full), the ticket stays `sending` on
    /// disk — after a restart the station looks for it in the printer — and is never printed again from here:
    /// it is in the printer, or in a customer's hand.
    private func recordPrinted(_ ticket: IssuedTicket) {
        do {
            try station.store.withReserve { try station.store.mark(ticket.ticket.id, .printed) }
        } catch {
            logger.error(
                "cannot record that the ticket was printed",
                metadata: ["code": "\(ticket.ticket.code)", "error": "\(error)"]
            )
        }
    }

    /// The printer cut the ticket (its `printed` mark is on disk): it waits in the printer now.
    private func confirmPrinted(_ ticket: IssuedTicket, status: PrinterStatus, samples: [Bool], bytes: Int) {
        interrupted = nil
        station.metrics.ticketsPrinted.increment()
        station.publish { $0.ticketsSincePaperLoad += 1 }
        if let takenAt {
            station.metrics.tearOffToNextTicket.record(ContinuousClock.now - takenAt)
            self.takenAt = nil
        }
        current?.state = .printed
        _ = machine.handle(.printed(ticket.ticket.id, at: now))
        presentedAt = now
        for present in samples {
            _ = machine.handle(.sensor(present: present, at: now))
        }
        station.publish {
            $0.state = .ready
            $0.waitingTicket = ticket.ticket.code.description
        }
        publishStatus(status)
        logger.info("ticket printed", metadata: ["code": "\(ticket.ticket.code)", "bytes": "\(bytes)"])
    }

    /// Pulls the waiting ticket back in when the ``RetractRule`` says so — it is an earlier business day's, or
    /// nobody took it within `retract_after_seconds` — voids its code and lets the next turn present a fresh
    /// one. A printer that cannot retract keeps the ticket (its holder is admitted when it is taken); one whose
    /// retract left the ticket out is reported once and keeps it too.
    private func retractIfDue(_ device: PrinterDevice) throws -> Bool {
        guard device.canRetract, let ticket = current, let presentedAt, retractRefused != ticket.ticket.id,
            let reason = retractRule.reason(
                presentedAt: presentedAt,
                now: now,
                issuedOn: station.days.businessDay(at: ticket.ticket.issuedAt),
                today: businessDay
            )
        else { return false }
        // Taken a moment ago? Then the tear-off machine records it; only a ticket still out goes back in.
        guard try device.queryStatus()[.ticketPresent] else { return false }
        guard try device.retractPresentedTicket() else {
            retractRefused = ticket.ticket.id
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
            return false
        }
        _ = device.drainReports()  // the sensor's "absent" is the retraction, not a customer
        let event = try station.store.withReserve {
            try station.store.voidTicket(ticket.ticket, device: config.device.id, at: station.clock.now())
        }
        if let event { station.queue.apply(event) }
        machine = TearOffMachine(debounce: config.printer.debounce)
        current = nil
        self.presentedAt = nil
        station.publish {
            $0.ticketsRetracted += 1
            $0.waitingTicket = nil
            $0.state = .printing
        }
        logger.notice(
            "ticket retracted and voided",
            metadata: ["code": "\(ticket.ticket.code)", "reason": "\(reason.rawValue)"]
        )
        return true
    }

    /// Records the waiting ticket's take. When it cannot be written (storage full, even with the reserve
    /// given back), the take is kept here and written first on every turn until it can be: the ticket stays
    /// the current one, so no new ticket is issued, and its code is never printed again.
    private func recordTaken() throws {
        guard let ticket = current else { return }
        let at = unrecordedTake ?? station.clock.now()
        unrecordedTake = at
        let event = try station.store.withReserve {
            try station.store.recordTaken(ticket.ticket, device: config.device.id, at: at)
        }
        unrecordedTake = nil
        if let event { station.queue.apply(event) }
        station.metrics.ticketsTaken.increment()
        takenAt = .now
        current = nil
        station.publish {
            $0.lastTaken = ticket.ticket.code.description
            $0.waitingTicket = nil
            $0.state = .printing
        }
        logger.info("ticket taken", metadata: ["code": "\(ticket.ticket.code)"])
    }

    // MARK: - Status

    private func publishStatus(_ status: PrinterStatus) {
        let faults = status.faults
        if faults != lastFaults {
            if let first = faults.first {
                logger.warning(
                    "printer fault",
                    metadata: ["faults": "\(faults.map(\.rawValue))", "action": "\(first.operatorAction)"]
                )
            } else if !lastFaults.isEmpty {
                logger.notice("printer fault cleared")
            }
            lastFaults = faults
        }
        station.publish { s in
            s.conditions = status.active.map(\.rawValue)
            let paper = status[.paperEnd] ? "out" : status[.paperNearEnd] ? "near_end" : "ok"
            // Paper loaded after it ran out: a new roll.
            if s.paper == "out" && paper != "out" { s.ticketsSincePaperLoad = 0 }
            s.paper = paper
            let important = status.active.filter { $0 != .ticketPresent }
            s.action = important.first?.operatorAction
            if !faults.isEmpty {
                s.state = .fault
            } else if s.state == .fault || s.state == .disconnected || s.state == .starting {
                s.state = machine.waitingTicket == nil ? .printing : .ready
            }
        }
    }
}
