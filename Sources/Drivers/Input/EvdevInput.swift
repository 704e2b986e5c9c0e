import CLinuxShims
import Glibc
import SystemPackage

/// An evdev input device (`/dev/input/eventN` or a udev symlink to one), grabbed exclusively (EVIOCGRAB) so
/// its keys reach nothing else: no console, no other program. Blocking reads with a timeout; one thread.
public final class EvdevInput {
    /// One `struct input_event`, without its timestamp.
    public struct Event: Sendable, Equatable {
        public var type: UInt16
        public var code: UInt16
        public var value: Int32

        public init(type: UInt16, code: UInt16, value: Int32) {
            self.type = type
            self.code = code
            self.value = value
        }

        /// `EV_KEY`: a key or button; value 1 = pressed, 0 = released, 2 = auto-repeat.
        public static let keyType: UInt16 = 1
    }

    public let path: String
    private var fd: FileDescriptor?
    private var pending: [UInt8] = []
    /// `struct input_event` on 64-bit Linux: timeval (16 bytes), type (2), code (2), value (4).
    static let eventSize = 24

    public init(path: String) {
        self.path = path
    }

    public var isOpen: Bool { fd != nil }

    public func open() throws(ScannerError) {
        guard fd == nil else { return }
        let raw: CInt
        do {
            raw = try syscall("open") { Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        } catch {
            throw ScannerError(PrinterError.fromSystem(error, device: path))
        }
        if CLinuxShims_eviocgrab(raw, 1) != 0 {
            let code = errno
            Glibc.close(raw)
            if code == EBUSY {
                throw ScannerError(
                    .busy,
                    device: path,
                    "another program has grabbed this input device — stop it (or another kioskd) and retry"
                )
            }
            throw ScannerError(
                PrinterError.fromSystem(
                    SystemCallError(operation: "ioctl(EVIOCGRAB)", errno: Errno(rawValue: code)),
                    device: path
                )
            )
        }
        fd = FileDescriptor(rawValue: raw)
        pending.removeAll()
    }

    /// The events that arrived within `timeout`; an unplugged device reports `disconnected`.
    public func read(timeout: Duration) throws(ScannerError) -> [Event] {
        guard let fd else { throw ScannerError(.disconnected, device: path, "input device not open") }
        pending += try asScanner { () throws(PrinterError) in
            try DescriptorIO(fd: fd, device: path).read(timeout: timeout, limit: 64 * Self.eventSize)
        }
        return Self.parse(&pending)
    }

    /// Takes the whole events off the front of `bytes`, leaving a partial one.
    static func parse(_ bytes: inout [UInt8]) -> [Event] {
        let whole = bytes.count / eventSize * eventSize
        var events: [Event] = []
        events.reserveCapacity(whole / eventSize)
        for offset in stride(from: 0, to: whole, by: eventSize) {
            func u16(_ at: Int) -> UInt16 { UInt16(bytes[offset + at]) | UInt16(bytes[offset + at + 1]) << 8 }
            let value = UInt32(u16(20)) | UInt32(u16(22)) << 16
            events.append(Event(type: u16(16), code: u16(18), value: Int32(bitPattern: value)))
        }
        bytes.removeFirst(whole)
        return events
    }

    public func close() {
        guard let fd else { return }
        _ = CLinuxShims_eviocgrab(fd.rawValue, 0)
        try? fd.close()
        self.fd = nil
    }
}
