import Drivers
import Foundation
import KioskCore
import Logging
import ServiceLifecycle
import ServiceSupport
import Synchronization

/// The door role: reads ticket QR codes, verifies them offline with the store's key ring (cached in the local
/// database), decides by queue order and capacity (``Admission``), and writes every decision to the log
/// before showing it.
///
/// The scanner loop blocks, so it runs on a dedicated thread (``DoorLoop``); exits come from the manager
/// page (`POST /door/exit`) or an exit key on an input device (``ExitKeyLoop``).
public final class DoorStation: Service, Sendable, Station {
    let context: StationContext
    let signal = StopSignal()
    /// Beaten by the scanner loop once per turn (the systemd watchdog's sign of life).
    public let heartbeat = Heartbeat()
    private let ring: Mutex<KeyRing>
    private let lastRingReload = Mutex(Timestamp(milliseconds: 0))
    private let verified = Mutex(VerifiedCodes())
    private let published: Mutex<DoorStationStatus>

    public init(_ context: StationContext) throws {
        self.context = context
        ring = Mutex(try context.store.keyRing(device: context.config.device.id))
        published = Mutex(DoorStationStatus(scanner: context.config.door.scanner))
    }

    public var status: DoorStationStatus { published.withLock { $0 } }

    /// The keys tickets are verified with: this device's and the store's other devices' (cached on disk).
    public var keyRing: KeyRing { ring.withLock { $0 } }

    /// Re-reads the key ring from the database (after sync or `kioskd keys trust` changed it).
    public func reloadKeyRing() throws {
        let fresh = try store.keyRing(device: config.device.id)
        ring.withLock { $0 = fresh }
        verified.withLock { $0.removeAll() }
    }

    /// Checks a scanned text against the key ring, once per recent code (``VerifiedCodes``).
    func verify(_ text: String, _ ring: KeyRing) -> VerifiedCodes.Outcome {
        if let known = verified.withLock({ $0.outcome(of: text) }) { return known }
        let outcome = Result { () throws(TicketCodec.DecodeError) in
            try TicketCodec.decode(text, prefix: config.store.statusURL, keyRing: ring, store: config.store.id)
        }
        verified.withLock { $0.remember(text, outcome) }
        return outcome
    }

    /// True at most once a second: whether an unknown key may trigger a reload of the ring.
    func ringReloadDue(now: Timestamp) -> Bool {
        lastRingReload.withLock { last in
            guard now.milliseconds - last.milliseconds >= 1000 else { return false }
            last = now
            return true
        }
    }

    /// The store's call window (``StoreSchedule/callWindow``: the server's once synced).
    var policy: AdmissionPolicy { AdmissionPolicy(callWindow: days.schedule.callWindow) }

    func publish(_ change: (inout DoorStationStatus) -> Void) {
        published.withLock { change(&$0) }
        changes.notify()
    }

    func publish(state: String) {
        guard status.state != state else { return }
        publish { $0.state = state }
    }

    public func run() async throws {
        let reader = try makeScannerReader(config.door.scanner, suffix: config.door.suffix)
        let lines = config.door.lines
        let signals = EntranceSignals(station: self, wiring: lines)
        let loop = DoorLoop(station: self, reader: reader, signals: signals)
        // The scanner's loop, and beside it each input and output the door has: every one on its own thread.
        var loops: [(name: String, body: @Sendable () -> Void)] = [("door-station", loop.run)]
        if let exitInput = config.door.exitInput {
            let exits = ExitKeyLoop(station: self, input: exitInput, key: config.door.exitKey)
            loops.append(("door-exit-key", exits.run))
        }
        loops.append(("door-lights", signals.run))
        if !lines.beams.isEmpty {
            let beams = ExitBeamLoop(station: self, wiring: lines)
            loops.append(("door-exit-beams", beams.run))
        }
        await withTaskGroup(of: Void.self) { group in
            for (name, body) in loops {
                group.addTask { await self.signal.runOnDedicatedThread(named: name, body) }
            }
        }
        signals.signal.stop()
        publish(state: "stopped")
    }
}
