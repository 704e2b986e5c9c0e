import Drivers

/// Exits from a key on an input device (a USB foot switch by the exit): each press is one person out.
/// Blocking, on its own thread; reconnects like the scanner when the device is unplugged.
final class ExitKeyLoop: @unchecked Sendable {
    // @unchecked Sendable: built on the service's task, then used by one thread only.
    let station: DoorStation
    let input: EvdevInput
    let key: ExitKey
    private var backoff: Duration = .milliseconds(200)

    init(station: DoorStation, input: String, key: ExitKey) {
        self.station = station
        self.input = EvdevInput(path: input)
        self.key = key
    }

    private func publish(_ state: String) {
        guard station.status.exitInput != state else { return }
        station.publish { $0.exitInput = state }
    }

    func run() {
        while !station.signal.isStopped {
            if !input.isOpen {
                do {
                    try input.open()
                    backoff = .milliseconds(200)
                    publish("ready")
                    station.logger.notice("exit key connected", metadata: ["input": "\(input.path)", "key": "\(key)"])
                } catch {
                    publish("disconnected")
                    station.logger.warning("exit key input not reachable", metadata: ["error": "\(error.message)"])
                    station.signal.sleep(backoff)
                    backoff = min(backoff * 2, .seconds(2))
                    continue
                }
            }
            do {
                for event in try input.read(timeout: .milliseconds(200)) where key.isExit(event) {
                    try station.customerExited()
                }
            } catch let error as ScannerError {
                station.logger.warning("exit key input went away", metadata: ["error": "\(error.message)"])
                input.close()
                publish("disconnected")
            } catch {
                station.logger.error("could not record an exit", metadata: ["error": "\(error)"])
                station.signal.sleep(.seconds(1))
            }
        }
        input.close()
    }
}
