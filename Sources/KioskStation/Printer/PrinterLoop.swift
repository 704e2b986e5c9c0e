import Drivers
import Foundation
import KioskCore
import Logging
import StationStore

/// The printer station's executor, on its own thread: it owns the connection and the store, and carries out
/// what ``PrinterStationMachine`` decides. Each turn it takes one look at the printer (status, the sensor, the
/// control API), hands it to the machine, performs the actions returned and reports what they found.
///
/// Order of durability: a ticket is issued (number, event, signed QR) in one FULL-synced transaction before
/// its bytes go out; it is marked `sending` before they go and `printed` once the printer cut it; a take is
/// recorded before the next ticket is issued. A restart therefore finds at most one ticket not taken, and
/// knows how far it got.
final class PrinterLoop: @unchecked Sendable {
    // @unchecked Sendable: built on the service's task, then handed to one thread that alone uses it.
    let station: PrinterStation
    let profile: PrinterProfile
    let address: PrinterAddress
    let encoder: EscPosEncoder
    let signer: TicketSigner
    let sensor: TakeSensor
    let logo: Bitmap?
    var logger: Logger { station.logger }
    var config: KioskConfig { station.config }

    var machine: PrinterStationMachine
    private let started = ContinuousClock.now
    /// Keeps the printer connected (``DeviceRunner``): attempts paced, a cause logged once, a replug noticed.
    private var runner: DeviceRunner<PrinterDevice>!
    /// Notices the printer plugged back in (made when it is first not found; none for network printers).
    private var arrivalWatch: (any ArrivalWatch)?
    /// The ticket in hand as the store gave it (code and QR for its print).
    var current: IssuedTicket?
    /// What the ticket printed last tells its holder (``TicketPromise``), while it waits in the presenter (none
    /// for one printed before a restart: it is left as it is).
    var promise: (id: TicketID, promise: TicketPromise)?
    var lastFaults: [StatusCondition] = []
    private var lastFullQuery = ContinuousClock.now
    /// When the last tear-off was recorded, until the next ticket is printed (the tear-off latency metric).
    var takenAt: ContinuousClock.Instant?
    /// The storage fault last logged (once per cause, not once a second).
    var storageFault: String?

    init(station: PrinterStation) throws {
        self.station = station
        let printer = station.config.printer
        profile = try PrinterProfile.load(named: printer.profile, extraDirectories: printer.profileDirectories)
        address = try PrinterAddress(parsing: printer.address, defaults: profile.transport)
        encoder = EscPosEncoder(profile: profile, qrMode: printer.qr)
        signer = try station.store.signingKey()
        logo = printer.logo.isEmpty ? nil : try PBMImage.load(path: printer.logo)
        sensor = printer.takeSensor.resolved(profile: profile, address: address)
        machine = PrinterStationMachine(
            settings: .init(
                pollInterval: printer.pollInterval,
                debounce: printer.debounce,
                statusIsPushed: sensor == .asb,
                seesPresence: sensor.seesPresence(profile: profile),
                retract: RetractRule(after: printer.retractAfter)
            )
        )
        if printer.retractAfter != nil, profile.retract == nil {  // a profile's retract needs its presenter
            throw PrinterError(
                .profile,
                device: profile.id,
                "\(profile.name) cannot retract a ticket — remove [printer] retract_after_seconds, or use a profile "
                    + "with a retract command (citizen-ppu-700, custom-vkp80iii)"
            )
        }
        runner = DeviceRunner(
            .init(
                ready: "printer connected",
                unreachable: "printer not reachable",
                lost: "printer connection lost",
                about: ["printer": "\(address)"],
                back: "the printer is plugged in again"
            ),
            signal: station.signal,
            logger: station.logger,
            open: { [unowned self] () throws(DeviceFault) in try connect() },
            close: { $0.close() },
            // The station's status is the machine's (its state, what to do): the loop publishes it.
            publish: { _ in },
            arrival: { [unowned self] in
                // A replugged printer prints within the 2 s the station promises, whatever the backoff grew to.
                if arrivalWatch == nil { arrivalWatch = address.makeArrivalWatch() }
                return arrivalWatch
            }
        )
    }

    var now: Duration { ContinuousClock.now - started }

    func run() {
        let day = station.days.businessDay(at: station.clock.now())
        let today = (try? station.store.issuedCount(prefix: config.printer.codePrefix, day: day)) ?? 0
        station.publish { $0.ticketsToday = today }
        logger.info(
            "printer station started",
            metadata: ["printer": "\(address)", "profile": "\(profile.id)", "take_sensor": "\(sensor.rawValue)"]
        )
        runner.run(
            between: { station.heartbeat.beat() },
            turn: { device throws(DeviceFault) in try turn(device) }
        )
    }

    /// One turn of the loop: one look at the printer and what the machine makes of it.
    private func turn(_ device: PrinterDevice) throws(DeviceFault) {
        do {
            try perform(machine.handle(.looked(look(device))), on: device)
            // Why none is handed out can change meanwhile (the last tickets before closing, then closed): the
            // status follows (published only when it changes).
            if machine.handsOutNone { closed() }
        } catch let error as PrinterError
            where error.code == .disconnected || error.code == .timeout || error.code == .io
        {
            station.publish {
                $0.state = .disconnected
                $0.action = error.message
                $0.connectionsLost += 1
            }
            // The ticket in hand stays known: the machine asks the store for it again when the printer is back.
            _ = machine.handle(.connectionLost)
            throw DeviceFault(error)
        } catch let wrong as ClockWatch.Wrong {
            // Said once by the watch; the status says it until the clock is set.
            station.publish {
                $0.state = .clockWrong
                $0.waitingTicket = nil
                $0.action = wrong.description
            }
            station.signal.sleep(.milliseconds(500))
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

    /// Opens the printer (and its status pushes, for a take sensor that uses them); the machine hears of it.
    private func connect() throws(DeviceFault) -> PrinterDevice {
        let candidate = PrinterDevice(transport: address.makeTransport(), profile: profile)
        do throws(PrinterError) {
            try candidate.open()
            if sensor == .asb { try candidate.enableAutomaticStatusBack() }
        } catch {
            candidate.close()
            station.publish {
                $0.state = .disconnected
                $0.action = error.message
            }
            throw DeviceFault(error)
        }
        arrivalWatch = nil  // its queued notices are about this connection
        _ = machine.handle(.connected(canRetract: candidate.canRetract))
        return candidate
    }

    // MARK: - Looking

    /// One look: the status (published), what the sensor said since the last look, the control API.
    private func look(_ device: PrinterDevice) throws -> PrinterStationMachine.Look {
        let status = try readStatus(device)
        publishStatus(status)
        let waiting = machine.waitingTicket != nil
        let time = station.clock.now()
        let calendar = station.days.schedule.calendar
        // Rolled once, and only if a check below needs it.
        lazy var end = lineEnd(at: time)
        return PrinterStationMachine.Look(
            at: now,
            time: time,
            today: calendar.businessDay(at: time),
            canPrint: status.canPrint,
            presence: waiting ? try device.presenceSamples(by: sensor, latest: status) : [],
            takeRequested: station.signal.takeNudge(),
            handsOut: calendar.handsOutTickets(at: time),
            pastClosing: lastTicketsPassed(end, at: time) != nil,
            outdated: waiting && promiseBroken(end, at: time)
        )
    }

    /// Status for this look. Polling modes ask every time; ASB mode reads pushes (waiting up to one poll
    /// interval for one) and asks outright once a second, which also notices a dead connection.
    private func readStatus(_ device: PrinterDevice) throws -> PrinterStatus {
        if sensor == .asb && machine.waitingTicket != nil && ContinuousClock.now - lastFullQuery < .seconds(1) {
            _ = try device.readPushedStatus(timeout: machine.untilNextLook(at: now))
            return device.status
        }
        lastFullQuery = .now
        return try device.queryStatus()
    }

    // MARK: - Actions

    /// What the loop has still to do in a turn: the machine's actions, and the printer's status to publish once
    /// the actions of a print's answer are done.
    enum Step {
        case action(PrinterStationMachine.Action)
        case publish(PrinterStatus)
    }

    /// What an action came to: the answer the machine waits for, if it asked one, and the status to publish after
    /// the answer's own actions.
    struct Outcome {
        var answer: PrinterStationMachine.Input?
        var then: PrinterStatus?

        static let none = Outcome()
    }

    /// Runs the machine's actions in order, and the machine's actions for each answer before the rest (the
    /// machine asked; it goes on from the answer). The loop is the only one that feeds the machine: no action
    /// re-enters it.
    func perform(_ actions: [PrinterStationMachine.Action], on device: PrinterDevice) throws {
        var pending = actions.map(Step.action)
        var next = 0
        while next < pending.count {
            let step = pending[next]
            next += 1
            switch step {
            case .publish(let status):
                publishStatus(status)
            case .action(let action):
                let outcome = try perform(action, on: device)
                var follow = outcome.answer.map { machine.handle($0).map(Step.action) } ?? []
                if let status = outcome.then { follow.append(.publish(status)) }
                pending.insert(contentsOf: follow, at: next)
            }
        }
    }

    private func perform(_ action: PrinterStationMachine.Action, on device: PrinterDevice) throws -> Outcome {
        switch action {
        case .fetchTicket(let issueNew):
            let waiting = try station.store.waitingTicket(prefix: config.printer.codePrefix)
            guard let ticket = try waiting ?? (issueNew ? issueNext() : nil) else {
                closed()
                return Outcome(answer: .noTicket)
            }
            storageHasRoom()
            current = ticket
            let present = ticket.state == .notSent ? nil : try device.ticketPresent(by: sensor, in: device.status)
            let found = PrinterStationMachine.Ticket(
                id: ticket.ticket.id,
                issuedOn: station.days.businessDay(at: ticket.ticket.issuedAt)
            )
            let time = station.clock.now()
            return Outcome(answer: .ticket(found, ticket.state, present: present, at: now, time: time))
        case .print(let id, let clearBufferFirst):
            return try print(inHand(id), on: device, clearBufferFirst: clearBufferFirst)
        case .markPrinted(let id):
            recordPrinted(try inHand(id))
        case .presented(let id, let printedNow):
            presented(try inHand(id), printedNow: printedNow)
        case .interrupted(let id):
            try interrupted(inHand(id), on: device)
        case .recordTake(let id, let at, let whileAway):
            try recordTaken(inHand(id), at: at, whileAway: whileAway)
        case .retract(let id, let reason):
            let outcome = try retract(inHand(id), reason: reason, on: device)
            return Outcome(answer: .retracted(id, outcome))
        case .void(let id, let reason):
            try void(inHand(id), reason: reason, on: device)
        case .setAside(let id, let reason):
            try setAside(inHand(id), reason: reason, on: device)
        case .pause(let duration):
            station.signal.sleep(duration)
        }
        return .none
    }

    /// The ticket an action is about: always the one the store last gave (the machine holds one at a time).
    private func inHand(_ id: TicketID) throws -> IssuedTicket {
        guard let current, current.ticket.id == id else {
            throw NotInHand(id: id)
        }
        return current
    }

    /// A machine action about a ticket the loop does not hold (a bug: logged, and the turn is retried).
    struct NotInHand: Error, CustomStringConvertible {
        let id: TicketID
        var description: String { "internal error: ticket \(id) is not the one the printer station holds" }
    }

}
