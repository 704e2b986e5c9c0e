import Drivers
import KioskCore

/// What the printer reports, published for the status endpoint, the pages and the log (faults once each).
extension PrinterLoop {
    func publishStatus(_ status: PrinterStatus) {
        let faults = status.faults
        if faults != lastFaults {
            if let first = faults.first {
                logger.warning(
                    "printer fault",
                    metadata: ["faults": "\(faults.map(\.rawValue))", "action": "\(first.operatorAction)"]
                )
            } else if !lastFaults.isEmpty {
                logger.notice("printer fault cleared")
            }
            lastFaults = faults
        }
        station.publish { s in
            s.conditions = status.active.map(\.rawValue)
            let paper = status[.paperEnd] ? "out" : status[.paperNearEnd] ? "near_end" : "ok"
            // Paper loaded after it ran out: a new roll.
            if s.paper == "out" && paper != "out" { s.ticketsSincePaperLoad = 0 }
            s.paper = paper
            let important = status.active.filter { $0 != .ticketPresent && $0 != .ticketRetracted }
            s.action = important.first?.operatorAction
            if !faults.isEmpty {
                s.state = .fault
            } else if s.state == .fault || s.state == .disconnected || s.state == .starting {
                s.state = machine.waitingTicket == nil ? .printing : .ready
            }
        }
    }
}
