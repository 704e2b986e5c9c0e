/// A printer: a transport, its profile, and what is known about its status.
///
/// Sends ESC/POS bytes, asks for status with the requests the profile lists, and decodes replies and
/// Automatic Status Back pushes with one ``StatusDecoder``. Blocking, like the transport under it.
public final class PrinterDevice {
    public let transport: any PrinterTransport
    public let profile: PrinterProfile
    public private(set) var status = PrinterStatus()
    private var decoder: StatusDecoder
    /// Bytes the decoder could not place, for diagnostics.
    public private(set) var discardedBytes = 0
    /// Reports decoded since the last ``drainReports()``, oldest first (at most 256).
    private var recent: [StatusReport] = []

    public init(transport: any PrinterTransport, profile: PrinterProfile) {
        self.transport = transport
        self.profile = profile
        self.decoder = StatusDecoder(map: profile.status)
    }

    public func open() throws(PrinterError) {
        try transport.open()
        _ = decoder.reset()
    }

    public func close() {
        transport.close()
    }

    /// Sends raw bytes (an encoded ticket).
    public func send(_ bytes: [UInt8], timeout: Duration = .seconds(10)) throws(PrinterError) {
        try transport.write(bytes, timeout: timeout)
    }

    /// Turns Automatic Status Back on: from now the printer pushes a block on every status change.
    public func enableAutomaticStatusBack() throws(PrinterError) {
        guard profile.automaticStatusBack, transport.hasBackChannel else {
            throw PrinterError(
                .unsupported,
                device: transport.address,
                "\(profile.name) has no Automatic Status Back here"
            )
        }
        try transport.write(EscPos.automaticStatusBack(EscPos.asbAll), timeout: .seconds(2))
    }

    /// Asks every status request the profile supports and waits up to `timeout` for all replies.
    /// Returns the merged status; conditions not answered keep their last known value.
    @discardableResult
    public func queryStatus(
        _ sources: [StatusSource]? = nil,
        timeout: Duration = .milliseconds(800)
    ) throws(PrinterError) -> PrinterStatus {
        if let fromScheduler = try transport.deviceStatus() {
            status = fromScheduler
            return status
        }
        guard transport.hasBackChannel else { return status }
        let wanted = sources ?? profile.statusQueries.sorted { $0.rawValue < $1.rawValue }
        var request: [UInt8] = []
        for source in wanted {
            request += EscPos.request(source)
            decoder.expect(source)
        }
        try transport.write(request, timeout: timeout)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while !decoder.pendingRequests.isEmpty {
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else {
                let missing = decoder.pendingRequests.map(\.rawValue).joined(separator: ", ")
                discardedBytes += decoder.reset().count
                throw PrinterError(
                    .timeout,
                    device: transport.address,
                    "no reply to \(missing) within \(timeout) — is the printer on, and is this the right profile?"
                )
            }
            absorb(try transport.read(timeout: remaining))
        }
        return status
    }

    /// Reads what the printer pushed (ASB) within `timeout` and returns the reports it contained.
    public func readPushedStatus(timeout: Duration) throws(PrinterError) -> [StatusReport] {
        absorb(try transport.read(timeout: timeout))
    }

    /// Every report decoded since the last call, in arrival order: a presenter that went "present" then
    /// "absent" between two looks shows both here, while ``status`` only keeps the last.
    public func drainReports() -> [StatusReport] {
        defer { recent.removeAll(keepingCapacity: true) }
        return recent
    }

    @discardableResult
    private func absorb(_ bytes: [UInt8]) -> [StatusReport] {
        var reports: [StatusReport] = []
        for event in decoder.feed(bytes) {
            switch event {
            case .report(let report):
                status.apply(report)
                reports.append(report)
                if recent.count >= 256 { recent.removeFirst() }
                recent.append(report)
            case .discarded(let bytes):
                discardedBytes += bytes.count
            case .xon, .xoff:
                break
            }
        }
        return reports
    }
}
