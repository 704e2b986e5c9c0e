/// A barcode scanner on a serial port or CDC-ACM (`/dev/ttyACM0`), opened exclusive with its settings saved
/// and restored like a serial printer (``SerialTransport``); its bytes go through a ``ScanFramer``.
public final class SerialScannerReader {
    public let path: String
    private let port: SerialTransport
    private var framer: ScanFramer
    private let started = ContinuousClock.now

    public init(
        path: String,
        settings: SerialSettings = SerialSettings(baud: 9600, flowControl: .none),
        framer: ScanFramer
    ) {
        self.path = path
        self.port = SerialTransport(path: path, settings: settings)
        self.framer = framer
    }

    public var isOpen: Bool { port.isOpen }

    public func open() throws(ScannerError) {
        try asScanner { () throws(PrinterError) in try port.open() }
    }

    /// Scans and refusals that completed within `timeout` (`[]` if none). A partial line that has gone quiet
    /// is refused here too.
    public func read(timeout: Duration) throws(ScannerError) -> [ScanEvent] {
        let wait = framer.hasPartialLine ? min(timeout, framer.partialTimeout) : timeout
        let bytes = try asScanner { () throws(PrinterError) in try port.read(timeout: wait) }
        let now = ContinuousClock.now - started
        var events = framer.feed(bytes, now: now)
        if bytes.isEmpty, let expired = framer.expire(now: now) { events.append(expired) }
        return events
    }

    /// Sends bytes to the scanner (a beep or LED command, for scanners that take one).
    public func send(_ bytes: [UInt8]) throws(ScannerError) {
        try asScanner { () throws(PrinterError) in try port.write(bytes, timeout: .seconds(1)) }
    }

    public func close() {
        port.close()
    }
}
