import Drivers

/// Exits from a key on an input device (a USB foot switch by the exit): each press is one person out.
/// Blocking, on its own thread; kept open by a ``DeviceRunner``, which reconnects it like the scanner when the
/// device is unplugged.
final class ExitKeyLoop: @unchecked Sendable {
    // @unchecked Sendable: built on the service's task, then used by one thread only.
    let station: DoorStation
    let key: ExitKey
    private let runner: DeviceRunner<EvdevInput>

    init(station: DoorStation, input path: String, key: ExitKey) {
        self.station = station
        self.key = key
        let input = EvdevInput(path: path)
        runner = DeviceRunner(
            .init(
                ready: "exit key connected",
                unreachable: "exit key input not reachable",
                lost: "exit key input went away",
                about: ["input": "\(path)", "key": "\(key)"]
            ),
            signal: station.signal,
            logger: station.logger,
            open: { () throws(DeviceFault) in
                try DeviceFault.opening(input, path: path) { () throws(ScannerError) in try input.open() }
            },
            close: { $0.close() },
            publish: { [station] state in station.publish { $0.exitInput = state } }
        )
    }

    func run() {
        runner.run { input throws(DeviceFault) in
            do {
                for event in try input.read(timeout: .milliseconds(200)) where key.isExit(event) {
                    try station.customerExited()
                }
            } catch let error as ScannerError {
                throw DeviceFault(error, path: input.path)
            } catch {
                station.logger.error("could not record an exit", metadata: ["error": "\(error)"])
                station.signal.sleep(.seconds(1))
            }
        }
    }
}
