import ServiceLifecycle
import SyncWire
import Synchronization

/// kioskd's start without a credential, as a `Service`: pairs the box (``KioskPairer``) and keeps what the
/// server gave; it returns then, which ends its group (`successTerminationBehavior: .gracefullyShutdownGroup`),
/// and kioskd starts the kiosk. SIGTERM while pairing ends it with nothing paired.
public final class PairingService: Service, Sendable {
    let pairer: KioskPairer
    private let result = Mutex<Paired?>(nil)

    public init(pairer: KioskPairer) {
        self.pairer = pairer
    }

    /// What the server gave, once paired.
    public var paired: Paired? { result.withLock { $0 } }

    public func run() async throws {
        let paired = try await cancelWhenGracefulShutdown { try await self.pairer.pair() }
        result.withLock { $0 = paired }
    }
}
