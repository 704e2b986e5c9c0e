import Drivers
import KioskCore

/// Exits counted by light beams across the exit door, on GPIO inputs: each person leaving writes
/// `customerExited` as the exit key does, so nobody has to press a button. One beam counts every break (an
/// exit-only door); two tell out from in by which breaks first (``ExitBeamMachine``). A beam blocked for
/// long (a trolley left there) is reported, not counted as hundreds.
final class ExitBeamLoop: @unchecked Sendable {
    // @unchecked Sendable: built on the service's task, then used by one thread only.
    let station: DoorStation
    let wiring: KioskConfig.DoorLines
    private var sensor: (any BeamSensor)?
    private var machine: ExitBeamMachine
    private var wake: Duration?
    /// Why the beams cannot be used, while they cannot (logged once per cause).
    private var unavailable: String?

    init(station: DoorStation, wiring: KioskConfig.DoorLines) {
        self.station = station
        self.wiring = wiring
        machine = ExitBeamMachine(twoBeams: wiring.beams.count == 2)
    }

    func run() {
        while !station.signal.isStopped {
            guard let sensor = opened() else {
                station.signal.sleep(.seconds(5))
                continue
            }
            do {
                let timeout = wake.map { max($0 - sensor.now(), .milliseconds(1)) } ?? .milliseconds(200)
                for edge in try sensor.read(timeout: min(timeout, .milliseconds(200))) {
                    apply(machine.handle(.edge(edge.beam, blocked: edge.blocked, at: edge.at)))
                }
                if let due = wake, sensor.now() >= due {
                    wake = nil
                    apply(machine.handle(.tick(at: sensor.now())))
                }
            } catch {
                sensor.close()
                self.sensor = nil
                failed(error)
            }
        }
        sensor?.close()
    }

    private func opened() -> (any BeamSensor)? {
        if let sensor { return sensor }
        do {
            let made = try GPIODBeamSensor(wiring.beams, activeLow: wiring.beamsActiveLow)
            // A beam already blocked when the door starts is a change like any other (debounced, then
            // reported if it stays).
            machine = ExitBeamMachine(twoBeams: wiring.beams.count == 2)
            wake = nil
            for (beam, blocked) in try made.blocked() where blocked {
                apply(machine.handle(.edge(beam, blocked: true, at: made.now())))
            }
            sensor = made
            unavailable = nil
            station.publish { $0.beams = "ready" }
            station.logger.notice("exit beams ready", metadata: ["lines": "\(made.address)"])
            return made
        } catch {
            failed(error)
            return nil
        }
    }

    private func apply(_ actions: [ExitBeamMachine.Action]) {
        for action in actions {
            switch action {
            case .exited:
                do {
                    _ = try station.customerExited()
                } catch {
                    station.logger.error("could not record an exit", metadata: ["error": "\(error)"])
                }
            case .walkedIn:
                station.logger.notice("someone came in through the exit (not counted)")
                station.publish { $0.walkedInThroughExit += 1 }
            case .blocked(let beam):
                station.logger.warning(
                    "exit beam blocked (nothing is counted until it clears): is something left in the exit?",
                    metadata: ["beam": "\(beam.rawValue)"]
                )
                station.publish { $0.beams = "blocked: the \(beam.rawValue) beam — clear the exit" }
            case .cleared(let beam):
                station.logger.notice("exit beam clear again", metadata: ["beam": "\(beam.rawValue)"])
                station.publish { $0.beams = "ready" }
            case .wake(let at):
                wake = min(wake ?? at, at)
            }
        }
    }

    private func failed(_ error: GPIOError) {
        station.publish { $0.beams = "unavailable: \(error.message)" }
        guard unavailable != error.message else { return }
        unavailable = error.message
        station.logger.warning(
            "the exit beams do not work (exits are not counted by them)",
            metadata: ["lines": "\(error.device)", "error": "\(error.message)"]
        )
    }
}
