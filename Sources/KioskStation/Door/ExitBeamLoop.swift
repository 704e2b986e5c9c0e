import Drivers
import KioskCore

/// Exits counted by light beams across the exit door, on GPIO inputs: each person leaving writes
/// `customerExited` as the exit key does, so nobody has to press a button. One beam counts every break (an
/// exit-only door); two tell out from in by which breaks first (``ExitBeamMachine``). A beam blocked for
/// long (a trolley left there) is reported, not counted as hundreds. The lines are kept open by a
/// ``DeviceRunner``: a chip missing or a line held by another program is a warning and a status, tried again.
final class ExitBeamLoop: @unchecked Sendable {
    // @unchecked Sendable: built on the service's task, then used by one thread only.
    let station: DoorStation
    let wiring: KioskConfig.DoorLines
    private var machine: ExitBeamMachine
    private var wake: Duration?
    private var runner: DeviceRunner<GPIODBeamSensor>!

    init(station: DoorStation, wiring: KioskConfig.DoorLines) {
        self.station = station
        self.wiring = wiring
        machine = ExitBeamMachine(twoBeams: wiring.beams.count == 2)
        runner = DeviceRunner(
            .gpio("exit beams", without: "exits are not counted by them", lines: wiring.beams),
            signal: station.signal,
            logger: station.logger,
            open: { [unowned self] () throws(DeviceFault) in try opened() },
            close: { $0.close() },
            publish: { [station] state in station.publish { $0.beams = state } }
        )
    }

    func run() {
        runner.run { sensor throws(DeviceFault) in
            do throws(GPIOError) {
                let timeout = wake.map { max($0 - sensor.now(), .milliseconds(1)) } ?? .milliseconds(200)
                for edge in try sensor.read(timeout: min(timeout, .milliseconds(200))) {
                    apply(machine.handle(.edge(edge.beam, blocked: edge.blocked, at: edge.at)))
                }
                if let due = wake, sensor.now() >= due {
                    wake = nil
                    apply(machine.handle(.tick(at: sensor.now())))
                }
            } catch {
                throw DeviceFault(error)
            }
        }
    }

    /// Opens the lines; a beam already blocked when the door starts is a change like any other (debounced,
    /// then reported if it stays).
    private func opened() throws(DeviceFault) -> GPIODBeamSensor {
        do throws(GPIOError) {
            let made = try GPIODBeamSensor(wiring.beams, activeLow: wiring.beamsActiveLow)
            machine = ExitBeamMachine(twoBeams: wiring.beams.count == 2)
            wake = nil
            do throws(GPIOError) {
                for (beam, blocked) in try made.blocked() where blocked {
                    apply(machine.handle(.edge(beam, blocked: true, at: made.now())))
                }
            } catch {
                made.close()
                throw error
            }
            return made
        } catch {
            throw DeviceFault(error)
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
                runner.publish(.blocked("the \(beam.rawValue) beam — clear the exit"))
            case .cleared(let beam):
                station.logger.notice("exit beam clear again", metadata: ["beam": "\(beam.rawValue)"])
                runner.publish(.ready)
            case .wake(let at):
                wake = min(wake ?? at, at)
            }
        }
    }
}
