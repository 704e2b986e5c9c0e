import Drivers
import Foundation
import KioskCore
import Logging

/// A virtual ESC/POS thermal printer: what a client cannot tell from a real one for the commands the
/// kiosk uses.
///
/// Feed it the bytes a client sends (``receive(_:)``); it renders each cut ticket, answers status requests
/// the way its profile's printer does (presenter bit included), pushes Automatic Status Back blocks when
/// enabled, and holds print data while a fault (paper end, cover open, offline, cutter error) stops it, as a
/// real printer does. Endpoints (TCP, pty, a gadget device) connect it to real kernel interfaces.
public final class PrinterEmulator: @unchecked Sendable {
    // @unchecked Sendable: every stored var is read and written only while `lock` is held.
    public let profile: PrinterProfile
    public let outputDirectory: String?
    private let logger: Logger
    private let lock = NSCondition()

    private var parser = EscPosParser()
    private var renderer: TicketRenderer
    private var physical = PhysicalState()
    private var asbEnabled = false
    private var held: [(command: EscPosParser.Command, length: Int)] = []
    /// Bytes since the last cut, and how many of them were parsed into commands.
    private var ticketBytes: [UInt8] = []
    private var parsedSinceCut = 0
    /// The most recent tickets (at most `keptTickets`) and how many were printed in all.
    private var printed: [PrintedTicket] = []
    private var printedCount = 0
    static let keptTickets = 2000
    static let maxTicketBytes = 8 << 20
    private var sinks: [Int: @Sendable ([UInt8]) -> Void] = [:]
    private var nextSinkID = 0
    private var takes = 0
    /// The ticket in the presenter (presenter profiles), and those the customer took from it.
    private var presented: PrintedTicket?
    private var taken: [PrintedTicket] = []
    /// The tickets the presenter pulled back in (the profile's `retract` command), in order.
    private var retracted: [PrintedTicket] = []
    /// A fault armed to strike after so many more bytes of print data.
    private var armed: (event: PhysicalEvent, remaining: Int)?
    /// A fault armed to strike at the next cut.
    private var armedAtCut: PhysicalEvent?
    private var onTicketHandler: (@Sendable (PrintedTicket) -> Void)?

    private struct PhysicalState {
        var paperNearEnd = false
        var paperEnd = false
        var coverOpen = false
        var offlineSwitch = false
        var cutterError = false
        var ticketPresent = false
        /// The last presented ticket went back in (reported where the profile maps `ticket_retracted`).
        var ticketRetracted = false

        /// What stops printing. Like Epson printers, it is offline whenever one of them holds.
        var stopped: Bool { paperEnd || coverOpen || offlineSwitch || cutterError }
    }

    /// Loads the console fonts from `fontDirectory`; throws if they are missing (see ``PSFFont``).
    public init(
        profile: PrinterProfile,
        outputDirectory: String? = nil,
        fontDirectory: String = PSFFont.directory,
        logger: Logger
    ) throws(PSFFont.LoadError) {
        self.profile = profile
        self.outputDirectory = outputDirectory
        self.logger = logger
        self.renderer = TicketRenderer(profile: profile, fonts: try .load(directory: fontDirectory))
        if let outputDirectory {
            try? FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true)
        }
    }

    // MARK: - Observing

    /// Called (outside the emulator's lock) after each cut.
    public func onTicket(_ handler: @escaping @Sendable (PrintedTicket) -> Void) {
        lock.withLock { onTicketHandler = handler }
    }

    /// The most recent tickets, oldest first (the last 2,000).
    public var tickets: [PrintedTicket] { lock.withLock { printed } }

    /// How many tickets were cut since the emulator started.
    public var ticketCount: Int { lock.withLock { printedCount } }

    /// The conditions the printer would report now.
    public var activeConditions: Set<StatusCondition> { lock.withLock { conditions() } }

    /// How many times the ticket was taken.
    public var takeCount: Int { lock.withLock { takes } }

    /// The tickets customers took from the presenter, in order (presenter profiles only).
    public var takenTickets: [PrintedTicket] { lock.withLock { taken } }

    /// The tickets the presenter pulled back in, in order (profiles with `retract`).
    public var retractedTickets: [PrintedTicket] { lock.withLock { retracted } }

    /// A client went away: a command it left half-sent is dropped, as a printer drops an aborted job.
    public func connectionClosed() {
        lock.withLock { parser.reset() }
    }

    /// Waits until at least `count` tickets were cut in all; returns the kept ones, or nil on timeout.
    public func waitForTickets(count: Int, timeout: Duration) -> [PrintedTicket]? {
        let deadline = Date().addingTimeInterval(timeout.seconds)
        lock.lock()
        defer { lock.unlock() }
        while printedCount < count {
            if !lock.wait(until: deadline) { return printedCount >= count ? printed : nil }
        }
        return printed
    }

    // MARK: - Connections

    /// Registers a connection that receives pushed status (ASB). Returns a token for ``detach(_:)``.
    public func attach(_ sink: @escaping @Sendable ([UInt8]) -> Void) -> Int {
        lock.withLock {
            nextSinkID += 1
            sinks[nextSinkID] = sink
            return nextSinkID
        }
    }

    public func detach(_ token: Int) {
        lock.withLock { _ = sinks.removeValue(forKey: token) }
    }

    /// Processes bytes from a client; returns the replies to send back on the same connection.
    public func receive(_ bytes: [UInt8]) -> [UInt8] {
        var replies: [UInt8] = []
        var pushes: [UInt8] = []
        var finished: [PrintedTicket] = []
        let handler: (@Sendable (PrintedTicket) -> Void)?
        lock.lock()
        ticketBytes.append(contentsOf: bytes)
        for item in parser.feed(bytes) {
            switch item.command {
            case .realTimeStatus, .realTimeRequest, .transmitStatus:
                // Real-time: answered at once, even while printing is stopped.
                parsedSinceCut += item.length
                replies += answer(item.command, pushes: &pushes)
            default:
                if physical.stopped || !held.isEmpty {
                    held.append(item)
                } else {
                    execute(item, pushes: &pushes, finished: &finished)
                    strikeArmedFault(after: item.length, pushes: &pushes)
                }
            }
        }
        if parsedSinceCut > Self.maxTicketBytes {
            // A client that never cuts (a status poller) must not grow memory: forget what was parsed.
            ticketBytes.removeFirst(parsedSinceCut)
            parsedSinceCut = 0
        }
        handler = onTicketHandler
        let currentSinks = Array(sinks.values)
        if !finished.isEmpty { lock.broadcast() }
        lock.unlock()
        deliver(pushes, to: currentSinks)
        for ticket in finished { handler?(ticket) }
        return replies
    }

    /// Applies a physical event (from the control channel, a test or the demo).
    public func simulate(_ event: PhysicalEvent) {
        var pushes: [UInt8] = []
        var finished: [PrintedTicket] = []
        lock.lock()
        let before = conditions()
        switch event {
        case .take:
            takes += 1
            if physical.ticketPresent, let ticket = presented { taken.append(ticket) }
            physical.ticketPresent = false
            presented = nil
        case .during(let fault, let bytes):
            armed = (fault, bytes)
        case .atNextCut(let fault):
            armedAtCut = fault
        case .paperNearEnd(let on): physical.paperNearEnd = on
        case .paperEnd(let on): physical.paperEnd = on
        case .coverOpen(let on): physical.coverOpen = on
        case .offline(let on): physical.offlineSwitch = on
        case .cutterError(let on): physical.cutterError = on
        }
        logger.info("physical event", metadata: ["event": "\(event)"])
        if conditions() != before { pushASB(into: &pushes) }
        if !physical.stopped { drainHeld(pushes: &pushes, finished: &finished) }
        let handler = onTicketHandler
        let currentSinks = Array(sinks.values)
        if !finished.isEmpty { lock.broadcast() }
        lock.unlock()
        deliver(pushes, to: currentSinks)
        for ticket in finished { handler?(ticket) }
    }

    /// Counts print data towards an armed fault and lets it strike when due.
    private func strikeArmedFault(after bytes: Int, pushes: inout [UInt8]) {
        guard var pending = armed else { return }
        pending.remaining -= bytes
        guard pending.remaining <= 0 else {
            armed = pending
            return
        }
        armed = nil
        strike(pending.event, pushes: &pushes)
    }

    /// A physical fault happens now (armed earlier).
    private func strike(_ event: PhysicalEvent, pushes: inout [UInt8]) {
        let before = conditions()
        switch event {
        case .paperEnd(let on): physical.paperEnd = on
        case .coverOpen(let on): physical.coverOpen = on
        case .offline(let on): physical.offlineSwitch = on
        case .cutterError(let on): physical.cutterError = on
        case .paperNearEnd(let on): physical.paperNearEnd = on
        case .take, .during, .atNextCut: break
        }
        logger.info("armed fault struck", metadata: ["event": "\(event)"])
        if conditions() != before { pushASB(into: &pushes) }
    }

    private func deliver(_ bytes: [UInt8], to sinks: [@Sendable ([UInt8]) -> Void]) {
        guard !bytes.isEmpty else { return }
        for sink in sinks { sink(bytes) }
    }

    // MARK: - Under the lock

    private func conditions() -> Set<StatusCondition> {
        var set: Set<StatusCondition> = []
        if physical.stopped { set.insert(.offline) }
        if physical.coverOpen { set.insert(.coverOpen) }
        if physical.paperEnd { set.insert(.paperEnd) }
        if physical.paperNearEnd || physical.paperEnd { set.insert(.paperNearEnd) }
        if physical.cutterError { set.insert(.cutterError) }
        if physical.ticketPresent { set.insert(.ticketPresent) }
        if physical.ticketRetracted { set.insert(.ticketRetracted) }
        return set
    }

    private func pushASB(into pushes: inout [UInt8]) {
        guard asbEnabled else { return }
        pushes += profile.status.encode(.asb, conditions())
    }

    private func answer(_ command: EscPosParser.Command, pushes: inout [UInt8]) -> [UInt8] {
        switch command {
        case .realTimeStatus(let n):
            let source: StatusSource?
            switch n {
            case 1: source = .dleEot1
            case 2: source = .dleEot2
            case 3: source = .dleEot3
            case 4: source = .dleEot4
            case 0x14: source = .customFull
            default: source = nil
            }
            guard let source, profile.statusQueries.contains(source) else { return [] }
            let body = profile.status.encode(source, conditions())
            return source == .customFull ? [0x10, 0x0F] + body : body
        case .transmitStatus(let n):
            guard n == 1, profile.statusQueries.contains(.gsR1) else { return [] }
            return profile.status.encode(.gsR1, conditions())
        case .realTimeRequest(let n):
            // DLE ENQ 1: recover from a recoverable error; 2: also clear the receive and print buffers.
            let before = conditions()
            physical.cutterError = false
            if n == 2 {
                held.removeAll()
                _ = renderer.finishPage()
            }
            if conditions() != before { pushASB(into: &pushes) }
            return []
        default:
            return []
        }
    }

    private func drainHeld(pushes: inout [UInt8], finished: inout [PrintedTicket]) {
        while !held.isEmpty && !physical.stopped {
            execute(held.removeFirst(), pushes: &pushes, finished: &finished)
        }
    }

    private func execute(
        _ item: (command: EscPosParser.Command, length: Int),
        pushes: inout [UInt8],
        finished: inout [PrintedTicket]
    ) {
        parsedSinceCut += item.length
        switch item.command {
        case .automaticStatusBack(let n):
            asbEnabled = n != 0 && profile.automaticStatusBack
            pushASB(into: &pushes)
        case .cut(let partial):
            let ticket = cut(partial: partial)
            finished.append(ticket)
            if profile.presenter {
                presented = ticket
                physical.ticketRetracted = false
                if !physical.ticketPresent {
                    physical.ticketPresent = true
                    pushASB(into: &pushes)
                }
            }
            if let fault = armedAtCut {
                armedAtCut = nil
                strike(fault, pushes: &pushes)
            }
        case .presenter(let command):
            guard command == profile.retract, physical.ticketPresent, let ticket = presented else { break }
            // The presenter pulls the ticket back in: gone from the mouth, kept as retracted, never taken.
            physical.ticketPresent = false
            physical.ticketRetracted = true
            presented = nil
            retracted.append(ticket)
            pushASB(into: &pushes)
            logger.info("ticket retracted", metadata: ["ticket": "\(ticket.number)"])
        case .unknown(let byte):
            logger.debug("unknown control byte", metadata: ["byte": "\(byte)"])
        default:
            renderer.apply(item.command)
        }
    }

    private func cut(partial: Bool) -> PrintedTicket {
        let (cutAt, cutDate) = (ContinuousClock.now, Date())
        let (image, text, qrCodes) = renderer.finishPage()
        let count = min(parsedSinceCut, ticketBytes.count)
        let bytes = Array(ticketBytes[0..<count])
        ticketBytes.removeFirst(count)
        parsedSinceCut = 0
        printedCount += 1
        let number = printedCount
        var path: String?
        if let outputDirectory {
            let candidate = "\(outputDirectory)/ticket-\(String(format: "%04d", number)).png"
            if FileManager.default.createFile(atPath: candidate, contents: Data(PNGWriter.encode(image))) {
                path = candidate
            } else {
                logger.warning("cannot write ticket image", metadata: ["path": "\(candidate)"])
            }
        }
        let ticket = PrintedTicket(
            number: number,
            image: image,
            text: text,
            qrCodes: qrCodes,
            bytes: bytes,
            partialCut: partial,
            pngPath: path,
            cutAt: cutAt,
            cutDate: cutDate
        )
        printed.append(ticket)
        if printed.count > Self.keptTickets { printed.removeFirst(printed.count - Self.keptTickets) }
        logger.info("ticket cut", metadata: ["number": "\(number)", "bytes": "\(bytes.count)"])
        return ticket
    }
}

extension Duration {
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}
