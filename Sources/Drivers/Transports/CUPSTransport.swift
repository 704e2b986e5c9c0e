import CCUPS

/// A printer behind a CUPS queue (normally a raw queue): each `write` is one raw job; status comes from the
/// scheduler's IPP attributes (`printer-state`, `printer-state-reasons`), since a raw queue has no back channel.
public final class CUPSTransport: PrinterTransport {
    public let queue: String
    /// `host:port` or a domain socket path; nil uses the system's default scheduler.
    public let server: String?
    private var http: OpaquePointer?
    /// libcups, loaded by the first `open`.
    private var cups: CCUPS_API?

    public init(queue: String, server: String? = nil) {
        self.queue = queue
        self.server = server
    }

    deinit { close() }

    public var address: String { server.map { "cups://\(queue)?server=\($0)" } ?? "cups://\(queue)" }
    public var hasBackChannel: Bool { false }
    public var isOpen: Bool { http != nil }

    public func open() throws(PrinterError) {
        guard http == nil else { return }
        let cups: CCUPS_API
        if let loaded = self.cups {
            cups = loaded
        } else {
            cups = try CUPSLibrary.load(for: address)
            self.cups = cups
        }
        let (host, port) = Self.split(server ?? cups.cupsServer().map { String(cString: $0) } ?? "localhost")
        guard
            let connection = cups.httpConnect2(host, port, nil, AF_UNSPEC, HTTP_ENCRYPTION_IF_REQUESTED, 1, 5000, nil)
        else {
            throw PrinterError(
                .notFound,
                device: address,
                "cannot reach the CUPS scheduler at \(host) — is cupsd running (systemctl status cups)?"
            )
        }
        http = connection
        // Fails early, with a clear message, if the queue does not exist.
        _ = try deviceStatus()
    }

    static func split(_ server: String) -> (String, CInt) {
        if server.hasPrefix("/") { return (server, 0) }
        if let colon = server.lastIndex(of: ":"), let port = CInt(server[server.index(after: colon)...]) {
            return (String(server[..<colon]), port)
        }
        return (server, 631)
    }

    public func write(_ bytes: [UInt8], timeout: Duration) throws(PrinterError) {
        guard let http, let cups else {
            throw PrinterError(.disconnected, device: address, "not connected to CUPS")
        }
        let job = cups.cupsCreateJob(http, queue, "kioskd ticket", 0, nil)
        guard job > 0 else { throw lastError("cannot create a job") }
        guard cups.cupsStartDocument(http, queue, job, "ticket", CUPS_FORMAT_RAW, 1) == HTTP_STATUS_CONTINUE else {
            throw lastError("cannot start the job's document")
        }
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                cups.cupsWriteRequestData(http, $0, buffer.count)
            }
        }
        guard status == HTTP_STATUS_CONTINUE else {
            _ = cups.cupsFinishDocument(http, queue)
            throw lastError("sending the job's data failed")
        }
        guard cups.cupsFinishDocument(http, queue).rawValue <= IPP_STATUS_OK_EVENTS_COMPLETE.rawValue else {
            throw lastError("CUPS did not accept the job")
        }
    }

    /// A raw queue has no back channel: waits `timeout` and returns nothing.
    public func read(timeout: Duration) throws(PrinterError) -> [UInt8] {
        var remaining = timespec(
            tv_sec: Int(timeout.components.seconds),
            tv_nsec: Int(timeout.components.attoseconds / 1_000_000_000)
        )
        _ = nanosleep(&remaining, nil)
        return []
    }

    /// The queue's state from the scheduler: stopped or not accepting → offline; state reasons such as
    /// `media-empty`, `media-low`, `cover-open` → the matching conditions.
    public func deviceStatus() throws(PrinterError) -> PrinterStatus? {
        guard let http, let cups else {
            throw PrinterError(.disconnected, device: address, "not connected to CUPS")
        }
        guard let request = cups.ippNewRequest(IPP_OP_GET_PRINTER_ATTRIBUTES) else {
            throw PrinterError(.io, device: address, "out of memory building an IPP request")
        }
        _ = cups.ippAddString(
            request,
            IPP_TAG_OPERATION,
            IPP_TAG_URI,
            "printer-uri",
            nil,
            "ipp://localhost/printers/\(queue)"
        )
        guard let response = cups.cupsDoRequest(http, request, "/") else {
            throw lastError("cannot query the queue")
        }
        defer { cups.ippDelete(response) }
        guard cups.ippGetStatusCode(response).rawValue <= IPP_STATUS_OK_EVENTS_COMPLETE.rawValue else {
            throw PrinterError(
                .notFound,
                device: address,
                "CUPS has no queue '\(queue)' — create it (lpadmin -p \(queue) -v socket://PRINTER:9100 -E) or fix the name"
            )
        }
        var reasons: [String] = []
        if let attribute = cups.ippFindAttribute(response, "printer-state-reasons", IPP_TAG_KEYWORD) {
            for i in 0..<cups.ippGetCount(attribute) {
                if let s = cups.ippGetString(attribute, i, nil) { reasons.append(String(cString: s)) }
            }
        }
        var state: CInt = 3
        if let attribute = cups.ippFindAttribute(response, "printer-state", IPP_TAG_ENUM) {
            state = cups.ippGetInteger(attribute, 0)
        }
        var accepting = true
        if let attribute = cups.ippFindAttribute(response, "printer-is-accepting-jobs", IPP_TAG_BOOLEAN) {
            accepting = cups.ippGetBoolean(attribute, 0) != 0
        }
        return Self.status(state: state, accepting: accepting, reasons: reasons)
    }

    /// Maps IPP printer state and reasons (RFC 8011 §5.4.11-12) to conditions.
    static func status(state: CInt, accepting: Bool, reasons: [String]) -> PrinterStatus {
        func has(_ prefix: String) -> Bool {
            reasons.contains { $0 == prefix || $0.hasPrefix(prefix + "-") }
        }
        return PrinterStatus([
            .offline: state == 5 || !accepting || has("offline") || has("shutdown") || has("paused"),
            .paperEnd: has("media-empty") || has("media-needed"),
            .paperNearEnd: has("media-low"),
            .coverOpen: has("cover-open") || has("door-open"),
            .cutterError: has("cutter-jam") || has("media-jam"),
        ])
    }

    private func lastError(_ what: String) -> PrinterError {
        let reason = cups?.cupsLastErrorString().map { String(cString: $0) } ?? "unknown error"
        return PrinterError(.io, device: address, "\(what): \(reason)")
    }

    public func close() {
        if let http, let cups { cups.httpClose(http) }
        http = nil
    }
}
