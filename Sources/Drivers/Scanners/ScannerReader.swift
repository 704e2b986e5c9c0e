/// One way of reading a barcode scanner: a serial/CDC-ACM line or an evdev keyboard. Blocking, like the
/// printer transports; used from one thread.
public protocol ScannerReader: AnyObject {
    /// The address in URI form, for messages.
    var address: String { get }
    /// The device node it reads.
    var path: String { get }
    var isOpen: Bool { get }
    func open() throws(ScannerError)
    /// Scans and refusals completed within `timeout`; `[]` if none.
    func read(timeout: Duration) throws(ScannerError) -> [ScanEvent]
    /// Sends a command to the scanner (a beep or LED), for scanners that take one.
    func send(_ bytes: [UInt8]) throws(ScannerError)
    func close()
}

extension SerialScannerReader: ScannerReader {
    public var address: String { "serial://\(path)" }
}

extension EvdevScannerReader: ScannerReader {
    public var address: String { "evdev://\(path)" }

    /// A keyboard-wedge scanner has no way back for commands.
    public func send(_ bytes: [UInt8]) throws(ScannerError) {
        throw ScannerError(.unsupported, device: path, "a keyboard-wedge scanner takes no commands")
    }
}

/// Builds a reader from `serial:///dev/ttyACM0?baud=9600` or `evdev:///dev/input/eventN`.
public func makeScannerReader(
    _ address: String,
    suffix: ScanFramer.Suffix
) throws(ScannerError) -> any ScannerReader {
    if address.hasPrefix("evdev://") {
        let path = String(address.dropFirst("evdev://".count))
        guard path.hasPrefix("/") else {
            throw ScannerError(.invalidAddress, device: address, "expected evdev:///dev/input/eventN")
        }
        return EvdevScannerReader(path: path)
    }
    guard case .serial(let path, var settings) = try? PrinterAddress(parsing: address) else {
        throw ScannerError(
            .invalidAddress,
            device: address,
            "a scanner is serial:///dev/ttyACM0?baud=9600 or evdev:///dev/input/eventN"
        )
    }
    if !address.contains("flow=") { settings.flowControl = .none }
    if !address.contains("baud=") { settings.baud = 9600 }
    return SerialScannerReader(path: path, settings: settings, framer: ScanFramer(suffix: suffix))
}
