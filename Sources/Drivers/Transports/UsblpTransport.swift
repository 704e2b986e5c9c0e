import Glibc
import SystemPackage

/// A USB printer through the kernel's usblp driver (`/dev/usb/lp0`): the simplest USB path, with the
/// back channel usblp offers (reads return what the printer sends on bulk IN).
public final class UsblpTransport: PrinterTransport {
    public let path: String
    private var io: DescriptorIO?

    public init(path: String) {
        self.path = path
    }

    deinit { close() }

    public var address: String { "file://\(path)" }
    public var hasBackChannel: Bool { true }
    public var isOpen: Bool { io != nil }

    public func open() throws(PrinterError) {
        guard io == nil else { return }
        do {
            let raw = try syscall("open") { Glibc.open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC) }
            io = DescriptorIO(fd: FileDescriptor(rawValue: raw), device: address)
        } catch {
            throw PrinterError.fromSystem(error, device: address)
        }
    }

    public func write(_ bytes: [UInt8], timeout: Duration) throws(PrinterError) {
        guard let io else { throw PrinterError(.disconnected, device: address, "device not open") }
        try io.writeAll(bytes, timeout: timeout)
    }

    public func read(timeout: Duration) throws(PrinterError) -> [UInt8] {
        guard let io else { throw PrinterError(.disconnected, device: address, "device not open") }
        return try io.read(timeout: timeout)
    }

    public func close() {
        if let io { try? io.fd.close() }
        io = nil
    }
}
