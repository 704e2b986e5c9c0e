import Drivers
import KioskCore
import Synchronization

/// The door's light and gate on GPIO: green held for "come in" with the gate pulsed, red blinking one way for
/// "not your turn yet", another for "store full", steady for an invalid ticket (``EntranceLightsMachine``).
///
/// ``show(_:)`` never waits: the door's loop hands the decision over and this thread sets the lines (within
/// a millisecond) and times the blinks. Lines that cannot be opened (a chip missing, a line held by another
/// program) are a warning and a status, tried again every 5 s: the door keeps deciding without its light.
/// Without lines wired the pattern still runs, for the door's status (`light`: what a light would show).
final class EntranceSignals: @unchecked Sendable {
    // @unchecked Sendable: `pending` is behind its mutex; the rest belongs to the signals' own thread.
    let station: DoorStation
    let wiring: KioskConfig.DoorLines
    let signal = StopSignal()
    private let pending = Mutex<[EntranceSignal]>([])
    private var machine: EntranceLightsMachine
    private var outputs: (any EntranceOutputs)?
    private let start = ContinuousClock.now
    /// Why the lines cannot be used, while they cannot (logged once per cause).
    private var unavailable: String?

    init(station: DoorStation, wiring: KioskConfig.DoorLines) {
        self.station = station
        self.wiring = wiring
        machine = EntranceLightsMachine(greenHold: wiring.greenHold, gatePulse: wiring.gatePulse)
    }

    /// Shows `decision` (from any thread; returns at once).
    func show(_ decision: AdmissionDecision) {
        pending.withLock { $0.append(EntranceSignal(decision)) }
        signal.nudge()
    }

    private var now: Duration { ContinuousClock.now - start }

    func run() {
        var wake: Duration?
        while !station.signal.isStopped && !signal.isStopped {
            _ = signal.takeNudge()
            guard open() else {
                pending.withLock { $0.removeAll() }  // a decision shown late is a wrong one
                signal.sleep(.milliseconds(250))
                continue
            }
            var inputs = pending.withLock { taken in
                defer { taken.removeAll() }
                return taken
            }
            .map { EntranceLightsMachine.Input.show($0, at: now) }
            if let due = wake, now >= due {
                wake = nil
                inputs.append(.tick(at: now))
            }
            let before = machine.on
            for input in inputs {
                for action in machine.handle(input) {
                    switch action {
                    case .set(let line, let on): set(line, on)
                    case .wake(let at): wake = at
                    }
                }
            }
            if machine.on != before {
                let light = EntranceLightsMachine.Line.allCases.filter(machine.on.contains).map(\.rawValue)
                station.publish { $0.light = light.isEmpty ? "off" : light.joined(separator: "+") }
            }
            // At most a quarter of a second: the station's stop is seen that soon.
            signal.sleep(min(wake.map { max($0 - now, .milliseconds(1)) } ?? .seconds(1), .milliseconds(250)))
        }
        outputs?.close()
    }

    private var lastAttempt: Duration?

    /// Opens the lines if they are not open (trying at most every 5 s); false while they cannot be.
    private func open() -> Bool {
        if outputs != nil || wiring.signals.isEmpty { return true }
        if let lastAttempt, now - lastAttempt < .seconds(5) { return false }
        lastAttempt = now
        do {
            let opened = try GPIODEntranceOutputs(wiring.signals, activeLow: wiring.signalsActiveLow)
            outputs = opened
            machine = EntranceLightsMachine(greenHold: wiring.greenHold, gatePulse: wiring.gatePulse)
            unavailable = nil
            station.publish { $0.lights = .ready }
            station.logger.notice("entrance light and gate ready", metadata: ["lines": "\(opened.address)"])
            return true
        } catch {
            failed(error)
            return false
        }
    }

    private func set(_ line: EntranceLightsMachine.Line, _ on: Bool) {
        do {
            try outputs?.set(line, on: on)
        } catch {
            outputs?.close()
            outputs = nil
            failed(error)
        }
    }

    private func failed(_ error: GPIOError) {
        station.publish { $0.lights = .unavailable(error.message) }
        guard unavailable != error.message else { return }
        unavailable = error.message
        station.logger.warning(
            "the entrance light and gate do not work (the door goes on deciding)",
            metadata: ["lines": "\(error.device)", "error": "\(error.message)"]
        )
    }
}
