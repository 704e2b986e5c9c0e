import Drivers
import Foundation
import KioskCore
import Logging
import SyncWire

/// A box with no credential pairs itself (RFC 8628, ``PairingGrant``): asks clup-server for a code, prints it
/// (``PairingTicket``) and logs it, polls at the rate the server sets until a manager types the code in the
/// console, and returns what the server gave. A code that expires is replaced by a new ticket; a refusal is
/// logged and a new code printed a minute later; a server out of reach is asked again every 10 s.
public struct KioskPairer: Sendable {
    let config: KioskConfig
    let logger: Logger
    /// Shows the code while it is valid (the pairing page), and the paired box's name once paired.
    let show: @Sendable (PairingTicket?) -> Void

    public init(config: KioskConfig, logger: Logger, show: @escaping @Sendable (PairingTicket?) -> Void = { _ in }) {
        self.config = config
        self.logger = logger
        self.show = show
    }

    /// Pairs this box; returns when a manager approved it (or throws on cancellation, as kioskd stops).
    public func pair() async throws -> Paired {
        let client = SyncAPI.makeClient(tls: try config.sync.tlsConfiguration())
        let server = config.sync.server.hasSuffix("/") ? config.sync.server : config.sync.server + "/"
        let api = SyncAPI(
            base: server,
            store: KioskConfig.placeholderStore,
            credential: "",
            client: client,
            syncProtocol: SyncProtocol.current
        )
        do {
            let paired = try await pairing(api)
            try? await client.shutdown()
            return paired
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    private func pairing(_ api: SyncAPI) async throws -> Paired {
        let role: KioskRole? =
            switch (config.printer.enabled, config.door.enabled) {
            case (true, true): .both
            case (true, false): .printer
            case (false, true): .door
            case (false, false): nil
            }
        // A door also listens to its scanner: the console's pairing QR pairs it without typing a code.
        return try await withThrowingTaskGroup(of: Paired.self) { group in
            group.addTask { try await codes(api, role: role) }
            if config.door.enabled { group.addTask { try await scans(api) } }
            guard let paired = try await group.next() else { throw CancellationError() }
            group.cancelAll()
            return paired
        }
    }

    /// Pairing codes, printed and shown, one after another until one is typed.
    private func codes(_ api: SyncAPI, role: KioskRole?) async throws -> Paired {
        while true {
            let grant: PairingGrant
            do {
                grant = try await api.call(
                    .POST,
                    "v1/pairing",
                    body: PairingRequest(device: config.device.id, role: role),
                    timeout: SyncAPI.shortDeadline
                )
            } catch {
                logger.warning(
                    "pairing: cannot ask clup-server for a code — asking again in 10 s",
                    metadata: ["error": "\(error)"]
                )
                try await Task.sleep(for: .seconds(10))
                continue
            }
            announce(grant)
            if let paired = try await poll(api, grant) { return paired }
        }
    }

    /// Pairing QRs the door's scanner reads (``PairingOffer``), until one is still good.
    private func scans(_ api: SyncAPI) async throws -> Paired {
        while true {
            let deviceCode = try await PairingScanner(config: config, logger: logger).nextOffer()
            do {
                let paired: Paired = try await api.call(
                    .POST,
                    "v1/pairing/token",
                    body: PairingPoll(deviceCode: deviceCode),
                    timeout: SyncAPI.shortDeadline
                )
                logger.notice("pairing: paired by the console's code", metadata: ["store": "\(paired.store)"])
                show(nil)
                return paired
            } catch {
                logger.error(
                    "pairing: the scanned pairing code is not good (expired, used, or another server's) — show a new one",
                    metadata: ["error": "\(error)"]
                )
            }
        }
    }

    /// Polls until the code is used or ends: what the server gave, or nil for a new code.
    private func poll(_ api: SyncAPI, _ grant: PairingGrant) async throws -> Paired? {
        var interval = max(grant.interval, 1)
        let deadline = ContinuousClock.now + .seconds(grant.expiresIn)
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .seconds(interval))
            do {
                let paired: Paired = try await api.call(
                    .POST,
                    "v1/pairing/token",
                    body: PairingPoll(deviceCode: grant.deviceCode),
                    timeout: SyncAPI.shortDeadline
                )
                show(nil)
                logger.notice(
                    "pairing: paired",
                    metadata: ["store": "\(paired.store)", "device": "\(paired.device)", "role": "\(paired.role)"]
                )
                return paired
            } catch let failure as SyncAPI.Failure {
                switch failure.reason.flatMap(PairingRefusal.init(rawValue:)) {
                case .authorizationPending: continue
                case .slowDown: interval += 5
                case .accessDenied:
                    logger.error("pairing: a manager refused this kiosk — a new code in a minute")
                    show(nil)
                    try await Task.sleep(for: .seconds(60))
                    return nil
                case .expiredToken: return nil
                case nil:
                    logger.warning("pairing: no answer to a poll — trying again", metadata: ["error": "\(failure)"])
                }
            }
        }
        logger.notice("pairing: the code expired before anyone typed it — printing a new one")
        return nil
    }

    /// Prints the pairing ticket where there is a printer, logs its code and shows it.
    private func announce(_ grant: PairingGrant) {
        let format = DateFormatter()
        format.dateFormat = "HH:mm"
        var ticket = PairingTicket(
            userCode: grant.userCode,
            verificationURI: grant.verificationURI,
            verificationURIComplete: grant.verificationURIComplete,
            validUntil: format.string(from: Date().addingTimeInterval(TimeInterval(grant.expiresIn))),
            validMinutes: grant.expiresIn / 60,
            device: config.device.id
        )
        logger.notice(
            "pairing: type code \(grant.userCode) at \(grant.verificationURI)",
            metadata: ["code": "\(grant.userCode)", "valid_until": "\(ticket.validUntil)"]
        )
        if config.printer.enabled {
            do {
                let profile = try PrinterProfile.load(
                    named: config.printer.profile,
                    extraDirectories: config.printer.profileDirectories
                )
                ticket.columns = profile.columns
                let address = try PrinterAddress(parsing: config.printer.address, defaults: profile.transport)
                let bytes = try EscPosEncoder(profile: profile, qrMode: config.printer.qr).encode(ticket.document)
                let device = PrinterDevice(transport: address.makeTransport(), profile: profile)
                try device.open()
                defer { device.close() }
                try device.send(bytes)
            } catch {
                logger.error(
                    "pairing: cannot print the pairing ticket — read the code from this log or the kiosk's page",
                    metadata: ["error": "\(error)"]
                )
            }
        }
        show(ticket)
    }
}
