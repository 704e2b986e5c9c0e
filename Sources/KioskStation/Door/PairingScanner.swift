import Drivers
import Logging
import SyncWire
import Synchronization

/// The door's scanner while the box pairs: read on a thread of its own (as ``DoorLoop`` reads it later) until
/// it sees a pairing QR (``PairingOffer``); anything else scanned meanwhile is ignored — there is no store yet.
struct PairingScanner: Sendable {
    let config: KioskConfig
    let logger: Logger

    /// The device code of the next pairing QR scanned; throws when cancelled first.
    func nextOffer() async throws -> String {
        let stop = StopSignal()
        let found = Mutex<String?>(nil)
        let address = config.door.scanner
        let suffix = config.door.suffix
        let logger = logger
        await stop.runOnDedicatedThread(named: "pairing-scanner") {
            guard let reader = try? makeScannerReader(address, suffix: suffix) else {
                logger.error("pairing: cannot use the scanner", metadata: ["scanner": "\(address)"])
                return
            }
            defer { reader.close() }
            while !stop.isStopped {
                if !reader.isOpen {
                    do { try reader.open() } catch {
                        stop.sleep(.seconds(1))
                        continue
                    }
                }
                do {
                    for case .scan(let scan) in try reader.read(timeout: .milliseconds(100)) {
                        guard let code = PairingOffer.deviceCode(in: scan.text) else { continue }
                        found.withLock { $0 = code }
                        return
                    }
                } catch {
                    reader.close()
                    stop.sleep(.seconds(1))
                }
            }
        }
        guard let code = found.withLock({ $0 }) else { throw CancellationError() }
        return code
    }
}
