import Drivers
import Foundation
import KioskCore
import Logging
import ServiceLifecycle
import Synchronization

/// What the status endpoint reports about the door.
public struct DoorStationStatus: Sendable, Codable, Equatable {
    public struct Decision: Sendable, Codable, Equatable {
        /// `admit` or the refusal's reason key (`not_your_turn`, `store_full`, ...).
        public var reason: String
        /// What to tell the customer.
        public var message: String
        public var code: String?
        /// Milliseconds since 1970.
        public var at: Int64
    }

    public var state = "starting"
    public var scanner: String
    public var last: Decision?
    public var admitted = 0
    public var refused = 0

    public init(scanner: String) {
        self.scanner = scanner
    }
}

/// The door role: reads ticket QR codes, verifies them offline with the store's key ring, decides by queue
/// order and capacity (``Admission``), and writes every decision to the log before showing it.
public final class DoorStation: Service, Sendable {
    let config: KioskConfig
    let store: LocalStore
    let queue: QueueReplica
    let logger: Logger
    let keyRing: KeyRing
    let signal = StopSignal()
    private let published: Mutex<DoorStationStatus>

    public init(config: KioskConfig, store: LocalStore, queue: QueueReplica, logger: Logger) throws {
        self.config = config
        self.store = store
        self.queue = queue
        self.logger = logger
        // The kiosk's own key; the keys of the store's other devices arrive with sync.
        self.keyRing = KeyRing([try store.signingKey().publicKey])
        self.published = Mutex(DoorStationStatus(scanner: config.door.scanner))
    }

    public var status: DoorStationStatus { published.withLock { $0 } }

    var policy: AdmissionPolicy { AdmissionPolicy(callWindow: .seconds(config.door.callWindowMinutes * 60)) }

    /// Decides on one scanned text and records the decision; what the door shows comes back.
    @discardableResult
    public func decide(_ text: String, at now: Timestamp = .now) throws -> AdmissionDecision {
        let claims = Result { () throws(TicketCodec.DecodeError) in
            try TicketCodec.decode(text, prefix: config.store.statusURL, keyRing: keyRing, store: config.store.id)
        }
        let state = queue.snapshot
        let decision = Admission.decide(claims, queue: state, now: now, policy: policy)
        let ticketID = try? claims.get().ticket
        var events: [StoreEvent] = []
        func event(_ body: StoreEvent.Body) -> StoreEvent {
            StoreEvent(id: .v7(at: now), store: config.store.id, device: config.device.id, time: now, body: body)
        }
        if case .admit = decision, let ticketID {
            if state.stage(of: ticketID) == .inPrinter { events.append(event(.ticketTaken(ticketID))) }
            events.append(event(.ticketAdmitted(ticketID, door: config.device.id)))
        } else {
            events.append(event(.scanRefused(reason: decision.reason, ticket: ticketID, door: config.device.id)))
        }
        try store.append(events)  // on disk before the customer sees the answer
        for e in events { queue.apply(e) }
        let code = ticketID.flatMap { state.entries[$0]?.ticket.code.description }
        published.withLock {
            $0.last = .init(reason: decision.reason, message: decision.description, code: code, at: now.milliseconds)
            if decision.isAdmitted { $0.admitted += 1 } else { $0.refused += 1 }
        }
        logger.info("door decision", metadata: ["decision": "\(decision.reason)", "code": "\(code ?? "-")"])
        return decision
    }

    /// A scan the reader itself refused (garbage, cut off, too long): logged as unreadable.
    func refuse(_ refusal: ScanRefusal, at now: Timestamp = .now) throws {
        let event = StoreEvent(
            id: .v7(at: now),
            store: config.store.id,
            device: config.device.id,
            time: now,
            body: .scanRefused(reason: AdmissionDecision.unreadable.reason, ticket: nil, door: config.device.id)
        )
        try store.append([event])
        published.withLock {
            $0.last = .init(reason: "unreadable", message: refusal.description, code: nil, at: now.milliseconds)
            $0.refused += 1
        }
        logger.info("door refused input", metadata: ["why": "\(refusal)"])
    }

    /// Someone left (exit button, foot switch). Occupancy never goes below zero.
    public func customerExited(at now: Timestamp = .now) throws {
        guard queue.snapshot.inside > 0 else { return }
        let event = StoreEvent(
            id: .v7(at: now),
            store: config.store.id,
            device: config.device.id,
            time: now,
            body: .customerExited
        )
        try store.append([event])
        queue.apply(event)
    }

    /// Writes `ticketExpired` for called tickets past the call window.
    func expireNoShows(at now: Timestamp = .now) throws {
        let due = Admission.noShows(queue: queue.snapshot, now: now, policy: policy)
        guard !due.isEmpty else { return }
        let events = due.map {
            StoreEvent(
                id: .v7(at: now),
                store: config.store.id,
                device: config.device.id,
                time: now,
                body: .ticketExpired($0)
            )
        }
        try store.append(events)
        for e in events { queue.apply(e) }
    }

    func publish(state: String) {
        published.withLock { $0.state = state }
    }

    public func run() async throws {
        let reader = try makeScannerReader(config.door.scanner, suffix: config.door.suffix)
        let loop = DoorLoop(station: self, reader: reader)
        await signal.runOnDedicatedThread(named: "door-station") { loop.run() }
        publish(state: "stopped")
    }
}

/// The door's blocking loop on its own thread: keep the scanner open, turn scans into decisions.
final class DoorLoop: @unchecked Sendable {
    // @unchecked Sendable: built on the service's task, then used by one thread only.
    let station: DoorStation
    let reader: any ScannerReader
    private var backoff: Duration = .milliseconds(200)

    init(station: DoorStation, reader: any ScannerReader) {
        self.station = station
        self.reader = reader
    }

    func run() {
        while !station.signal.isStopped {
            if !reader.isOpen {
                do {
                    try reader.open()
                    backoff = .milliseconds(200)
                    station.publish(state: "ready")
                    station.logger.notice("scanner connected", metadata: ["scanner": "\(reader.address)"])
                } catch {
                    station.publish(state: "disconnected")
                    station.logger.warning("scanner not reachable", metadata: ["error": "\(error.message)"])
                    station.signal.sleep(backoff)
                    backoff = min(backoff * 2, .seconds(2))
                    continue
                }
            }
            do {
                for event in try reader.read(timeout: .milliseconds(100)) {
                    switch event {
                    case .scan(let scan): try station.decide(scan.text)
                    case .refused(let refusal): try station.refuse(refusal)
                    }
                }
                try station.expireNoShows()
            } catch let error as PrinterError {
                station.logger.warning("scanner went away", metadata: ["error": "\(error.message)"])
                reader.close()
                station.publish(state: "disconnected")
            } catch {
                station.logger.error("door station error", metadata: ["error": "\(error)"])
                station.signal.sleep(.seconds(1))
            }
        }
        reader.close()
    }
}
