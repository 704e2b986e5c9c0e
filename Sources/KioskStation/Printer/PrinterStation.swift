import Drivers
import Foundation
import KioskCore
import Logging
import ServiceLifecycle
import ServiceSupport
import Synchronization

/// The ticket printer role: keeps one ticket waiting in the printer and prints the next as soon as it is taken.
///
/// The device loop blocks on the printer, so it runs on a dedicated thread (``PrinterLoop``); this type is the
/// `Service` around it, the status it publishes, and the control API (`requestTake`). It never waits for the
/// network: the queue is the local log.
public final class PrinterStation: Service, Sendable, Station {
    let context: StationContext
    let signal = StopSignal()
    /// Beaten by the device loop once per turn (the systemd watchdog's sign of life).
    public let heartbeat = Heartbeat()
    private let published: Mutex<PrinterStationStatus>

    public init(_ context: StationContext) {
        self.context = context
        let printer = context.config.printer
        published = Mutex(PrinterStationStatus(address: printer.address, profile: printer.profile))
    }

    /// The current status (for the HTTP endpoint and tests).
    public var status: PrinterStationStatus { published.withLock { $0 } }

    /// Applies `change`; when it changed anything, stamps the time and tells the live pages.
    func publish(_ change: (inout PrinterStationStatus) -> Void) {
        let changed = published.withLock {
            var status = $0
            change(&status)
            guard status != $0 else { return false }
            status.updatedAt = clock.now().milliseconds
            $0 = status
            return true
        }
        if changed { changes.notify() }
    }

    /// The control API says the waiting ticket was taken (demo, tests, a hardware button).
    public func requestTake() {
        signal.nudge()
    }

    public func run() async throws {
        let loop = try PrinterLoop(station: self)
        await signal.runOnDedicatedThread(named: "printer-station") { loop.run() }
        publish { $0.state = .stopped }
        logger.info("printer station stopped")
    }

    /// Asks the loop to end after its current step (also what SIGTERM does through the service group).
    public func stop() {
        signal.stop()
    }
}
