import Drivers
import KioskCore

/// The door's blocking loop on its own thread: keep the scanner open, turn scans into decisions, answer
/// serial scanners that take a beep/LED command, and expire no-shows.
final class DoorLoop: @unchecked Sendable {
    // @unchecked Sendable: built on the service's task, then used by one thread only.
    let station: DoorStation
    let reader: any ScannerReader
    let signals: EntranceSignals?
    /// Keeps the scanner open (``DeviceRunner``): a scanner unplugged or unreachable is `disconnected`.
    private let runner: DeviceRunner<any ScannerReader>

    init(station: DoorStation, reader: any ScannerReader, signals: EntranceSignals?) {
        self.station = station
        self.reader = reader
        self.signals = signals
        runner = DeviceRunner(
            .init(
                ready: "scanner connected",
                unreachable: "scanner not reachable",
                lost: "scanner went away",
                about: ["scanner": "\(reader.address)"]
            ),
            signal: station.signal,
            logger: station.logger,
            open: { () throws(DeviceFault) in
                try DeviceFault.opening(reader, path: reader.path) { () throws(ScannerError) in try reader.open() }
            },
            close: { $0.close() },
            publish: { [station] state in station.publish(state: "\(state)") }
        )
    }

    func run() {
        runner.run(between: { station.heartbeat.beat() }, turn: { reader throws(DeviceFault) in try turn(reader) })
    }

    /// One turn: decide on what the scanner sent within 100 ms.
    private func turn(_ reader: any ScannerReader) throws(DeviceFault) {
        do {
            let scans = try reader.read(timeout: .milliseconds(100))
            if let wrong = station.days.clockWatch.problem {
                // Nothing is decided, expired or counted by a clock that cannot be believed: a scan now would be
                // judged against the wrong day. Staff read why on the manager page.
                if station.status.state != "clock_wrong" {
                    station.publish(state: "clock_wrong")
                    station.logger.error(
                        "the door decides nothing until the clock is set",
                        metadata: ["why": "\(wrong)"]
                    )
                }
                if !scans.isEmpty {
                    station.logger.warning(
                        "scans not decided: the clock is wrong",
                        metadata: ["scans": "\(scans.count)"]
                    )
                }
                return
            }
            if station.status.state == "clock_wrong" { station.publish(state: "ready") }
            let decisions = try station.decide(scans)
            for decision in decisions {
                signals?.show(decision)
                feedback(decision)
                station.voice?.say(.decision(decision))
            }
            try station.expireNoShows()
        } catch let error as ScannerError {
            station.publish { $0.connectionsLost += 1 }
            throw DeviceFault(error, path: reader.path)
        } catch {
            station.logger.error("door station error", metadata: ["error": "\(error)"])
            station.signal.sleep(.seconds(1))
        }
    }

    /// The configured good-read or refusal command (a beep, an LED), for scanners that take one. A scanner
    /// that does not answer is not a reason to stop admitting: the failure is logged once per connection.
    private var feedbackFailed = false

    private func feedback(_ decision: AdmissionDecision) {
        let bytes = decision.isAdmitted ? station.config.door.feedbackAdmit : station.config.door.feedbackRefuse
        guard !bytes.isEmpty else { return }
        do {
            try reader.send(bytes)
            feedbackFailed = false
        } catch {
            if !feedbackFailed {
                station.logger.warning(
                    "scanner did not take the feedback command",
                    metadata: ["error": "\(error.message)"]
                )
            }
            feedbackFailed = true
        }
    }
}
