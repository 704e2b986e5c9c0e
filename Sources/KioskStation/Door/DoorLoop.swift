import Drivers
import KioskCore

/// The door's blocking loop on its own thread: keep the scanner open, turn scans into decisions, answer
/// serial scanners that take a beep/LED command, and expire no-shows.
final class DoorLoop: @unchecked Sendable {
    // @unchecked Sendable: built on the service's task, then used by one thread only.
    let station: DoorStation
    let reader: any ScannerReader
    let signals: EntranceSignals?
    private var backoff = ReconnectBackoff()
    /// Why the scanner could not be opened, while it cannot (logged once per cause, not once per retry).
    private var unreachable: String?

    init(station: DoorStation, reader: any ScannerReader, signals: EntranceSignals?) {
        self.station = station
        self.reader = reader
        self.signals = signals
    }

    func run() {
        while !station.signal.isStopped {
            turn()
            station.heartbeat.beat()
        }
        reader.close()
    }

    /// One turn: open the scanner, or decide on what it sent within 100 ms.
    private func turn() {
        if !reader.isOpen {
            do {
                try reader.open()
                backoff.reset()
                unreachable = nil
                station.publish(state: "ready")
                station.logger.notice("scanner connected", metadata: ["scanner": "\(reader.address)"])
            } catch {
                station.publish(state: "disconnected")
                if unreachable != error.message {
                    unreachable = error.message
                    station.logger.warning("scanner not reachable", metadata: ["error": "\(error.message)"])
                }
                waitBeforeRetry(after: error)
                return
            }
        }
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
            station.logger.warning("scanner went away", metadata: ["error": "\(error.message)"])
            reader.close()
            station.publish {
                $0.state = "disconnected"
                $0.connectionsLost += 1
            }
        } catch {
            station.logger.error("door station error", metadata: ["error": "\(error)"])
            station.signal.sleep(.seconds(1))
        }
    }

    /// Sleeps before opening the scanner again; a missing scanner's device node appearing (udev, on replug)
    /// ends the wait at once.
    private func waitBeforeRetry(after error: ScannerError) {
        _ = backoff.wait(on: station.signal, watch: error.code == .notFound ? DeviceNodeWatch(path: reader.path) : nil)
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
