/// One way of reaching a printer: USB (libusb), CUPS, serial, TCP 9100 or a usblp node.
///
/// Calls block, so callers keep them off the cooperative thread pool (a dedicated thread or
/// `NIOThreadPool`). An instance is used from one thread at a time.
public protocol PrinterTransport: AnyObject {
    /// The printer address in URI form, for messages (`tcp://10.0.0.7:9100`).
    var address: String { get }
    /// Whether the printer can answer status requests over this transport.
    var hasBackChannel: Bool { get }
    var isOpen: Bool { get }

    func open() throws(PrinterError)
    /// Writes all bytes or throws; `timeout` bounds the whole write.
    func write(_ bytes: [UInt8], timeout: Duration) throws(PrinterError)
    /// Returns the bytes that arrive within `timeout`, or `[]` when none did.
    func read(timeout: Duration) throws(PrinterError) -> [UInt8]
    /// Status known to something other than the printer's back channel (the CUPS scheduler); nil if none.
    func deviceStatus() throws(PrinterError) -> PrinterStatus?
    /// Whether a modem input line is asserted (an IR take-sensor wired to it); nil on a transport without them.
    func modemLine(_ line: ModemLine) throws(PrinterError) -> Bool?
    func close()
}

extension PrinterTransport {
    public func deviceStatus() throws(PrinterError) -> PrinterStatus? { nil }

    public func modemLine(_ line: ModemLine) throws(PrinterError) -> Bool? { nil }

    /// Closes and opens again: after a disconnect, or to find a USB printer that was plugged back in.
    public func reconnect() throws(PrinterError) {
        close()
        try open()
    }
}
