/// A keyboard-wedge (USB-HID) scanner through evdev: `/dev/input/eventN` or a udev symlink such as
/// `/dev/clup/scanner`, grabbed exclusively (``EvdevInput``) so scans never type into a console or anything
/// else, and decoded as a US keyboard by ``HIDKeyDecoder``.
public final class EvdevScannerReader {
    private let input: EvdevInput
    private var decoder: HIDKeyDecoder

    public init(path: String, maxLength: Int = 4096) {
        self.input = EvdevInput(path: path)
        self.decoder = HIDKeyDecoder(maxLength: maxLength)
    }

    public var path: String { input.path }
    public var isOpen: Bool { input.isOpen }

    public func open() throws(ScannerError) {
        try input.open()
    }

    /// Scans and refusals completed within `timeout`. An unplugged scanner reports `disconnected`.
    public func read(timeout: Duration) throws(ScannerError) -> [ScanEvent] {
        try input.read(timeout: timeout).compactMap { decoder.handle(type: $0.type, code: $0.code, value: $0.value) }
    }

    public func close() {
        input.close()
    }
}
