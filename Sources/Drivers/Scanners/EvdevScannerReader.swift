import CLinuxShims
import Glibc
import SystemPackage

/// A keyboard-wedge (USB-HID) scanner through evdev: `/dev/input/eventN` or a udev symlink such as
/// `/dev/clup/scanner`, grabbed exclusively (EVIOCGRAB) so scans never type into a console or anything else,
/// and decoded as a US keyboard by ``HIDKeyDecoder``.
public final class EvdevScannerReader {
    public let path: String
    private var fd: FileDescriptor?
    private var decoder: HIDKeyDecoder
    private var pending: [UInt8] = []
    /// `struct input_event` on 64-bit Linux: timeval (16 bytes), type (2), code (2), value (4).
    static let eventSize = 24

    public init(path: String, maxLength: Int = 4096) {
        self.path = path
        self.decoder = HIDKeyDecoder(maxLength: maxLength)
    }

    public var isOpen: Bool { fd != nil }

    public func open() throws(PrinterError) {
        guard fd == nil else { return }
        let raw: CInt
        do {
            raw = try syscall("open") { Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        } catch {
            throw PrinterError.fromSystem(error, device: path)
        }
        if CLinuxShims_eviocgrab(raw, 1) != 0 {
            let code = errno
            Glibc.close(raw)
            if code == EBUSY {
                throw PrinterError(
                    .busy,
                    device: path,
                    "another program has grabbed this input device — stop it (or another kioskd) and retry"
                )
            }
            throw PrinterError.fromSystem(
                SystemCallError(operation: "ioctl(EVIOCGRAB)", errno: Errno(rawValue: code)),
                device: path
            )
        }
        fd = FileDescriptor(rawValue: raw)
        pending.removeAll()
    }

    /// Scans and refusals completed within `timeout`. An unplugged scanner reports `disconnected`.
    public func read(timeout: Duration) throws(PrinterError) -> [ScanEvent] {
        guard let fd else { throw PrinterError(.disconnected, device: path, "scanner not open") }
        let bytes = try DescriptorIO(fd: fd, device: path).read(timeout: timeout, limit: 64 * Self.eventSize)
        pending += bytes
        var events: [ScanEvent] = []
        let whole = pending.count / Self.eventSize * Self.eventSize
        for offset in stride(from: 0, to: whole, by: Self.eventSize) {
            let type = UInt16(pending[offset + 16]) | UInt16(pending[offset + 17]) << 8
            let code = UInt16(pending[offset + 18]) | UInt16(pending[offset + 19]) << 8
            let value = Int32(
                bitPattern: UInt32(pending[offset + 20]) | UInt32(pending[offset + 21]) << 8
                    | UInt32(pending[offset + 22]) << 16 | UInt32(pending[offset + 23]) << 24
            )
            if let event = decoder.handle(type: type, code: code, value: value) { events.append(event) }
        }
        pending.removeFirst(whole)
        return events
    }

    public func close() {
        guard let fd else { return }
        _ = CLinuxShims_eviocgrab(fd.rawValue, 0)
        try? fd.close()
        self.fd = nil
    }
}
