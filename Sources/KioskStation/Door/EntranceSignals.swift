import Drivers
import KioskCore
import Synchronization

/// The door's light and gate on GPIO: green held for "come in" with the gate pulsed, red blinking one way for
/// "not your turn yet", another for "store full", steady for an invalid ticket (``EntranceLightsMachine``).
///
/// ``show(_:)`` never waits: the door's loop hands the decision over and this thread sets the lines (within
/// a millisecond) and times the blinks. The lines are kept open by a ``DeviceRunner``: lines that cannot be
/// opened (a chip missing, a line held by another program) are a warning (once per cause) and a status, tried
/// again; the door keeps deciding without its light. Without lines wired the pattern still runs, for the door's
/// status (`light`: what a light would show).
final class EntranceSignals: @unchecked Sendable {
    // @unchecked Sendable: `pending` is behind its mutex; the rest belongs to the signals' own thread.
    let station: DoorStation
    let wiring: KioskConfig.DoorLines
    let signal = StopSignal()
    private let pending = Mutex<[EntranceSignal]>([])
    private var machine: EntranceLightsMachine
    private var wake: Duration?
    private let start = ContinuousClock.now
    private var runner: DeviceRunner<any EntranceOutputs>!

    init(station: DoorStation, wiring: KioskConfig.DoorLines) {
        self.station = station
        self.wiring = wiring
        machine = EntranceLightsMachine(greenHold: wiring.greenHold, gatePulse: wiring.gatePulse)
        runner = DeviceRunner(
            .gpio("entrance light and gate", without: "the door goes on deciding", lines: wiring.signals),
            signal: signal,
            logger: station.logger,
            open: { [unowned self] () throws(DeviceFault) in
                do throws(GPIOError) {
                    let opened = try GPIODEntranceOutputs(self.wiring.signals, activeLow: self.wiring.signalsActiveLow)
                    machine = EntranceLightsMachine(greenHold: self.wiring.greenHold, gatePulse: self.wiring.gatePulse)
                    wake = nil
                    return opened
                } catch {
                    throw DeviceFault(error)
                }
            },
            close: { $0.close() },
            publish: { [station] state in station.publish { $0.lights = state } }
        )
    }

    /// Shows `decision` (from any thread; returns at once).
    func show(_ decision: AdmissionDecision) {
        pending.withLock { $0.append(EntranceSignal(decision)) }
        signal.nudge()
    }

    private var now: Duration { ContinuousClock.now - start }

    func run() {
        guard !wiring.signals.isEmpty else {
            while !stopping() { try? step(nil) }  // nothing to set: nothing fails
            return
        }
        runner.run(
            between: {
                // A decision shown late is a wrong one: none waits while the lines cannot be used.
                if runner.device == nil { pending.withLock { $0.removeAll() } }
                _ = stopping()
            },
            turn: { outputs throws(DeviceFault) in try step(outputs) }
        )
    }

    /// Whether the door stops (the station's stop ends this thread's too).
    private func stopping() -> Bool {
        if station.signal.isStopped { signal.stop() }
        return signal.isStopped
    }

    /// One step: the decisions shown since the last, the pattern's due change, the lines set; then a sleep until
    /// the next change, a decision, or a quarter of a second (the station's stop is seen that soon).
    private func step(_ outputs: (any EntranceOutputs)?) throws(DeviceFault) {
        _ = signal.takeNudge()
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
                case .set(let line, let on):
                    do throws(GPIOError) {
                        try outputs?.set(line, on: on)
                    } catch {
                        throw DeviceFault(error)
                    }
                case .wake(let at): wake = at
                }
            }
        }
        if machine.on != before {
            let light = EntranceLightsMachine.Line.allCases.filter(machine.on.contains).map(\.rawValue)
            station.publish { $0.light = light.isEmpty ? "off" : light.joined(separator: "+") }
        }
        signal.sleep(min(wake.map { max($0 - now, .milliseconds(1)) } ?? .seconds(1), .milliseconds(250)))
    }
}
