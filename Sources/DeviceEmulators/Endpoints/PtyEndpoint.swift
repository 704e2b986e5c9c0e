import CLinuxShims
import Drivers
import Glibc
import Logging
import SystemPackage

/// A serial printer on a pseudo-terminal: clients open ``slavePath`` (or the symlink) like `/dev/ttyUSB0`
/// and set baud rate and flow control with termios as on a real port.
///
/// The emulator keeps one descriptor of the slave side open itself, so the pair survives clients coming and
/// going (gpsfake does the same), and sets it raw so bytes pass unchanged.
public final class PtyEndpoint: Sendable {
    public let slavePath: String
    public let linkPath: String?
    private let endpoint: DescriptorEndpoint
    private let keepOpen: FileDescriptor

    public init(emulator: PrinterEmulator, linkPath: String? = nil, logger: Logger) throws(SystemCallError) {
        let master = try syscall("posix_openpt") { CLinuxShims_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) }
        do throws(SystemCallError) {
            var name = [CChar](repeating: 0, count: 128)
            try syscall("ptsname") { CLinuxShims_ptsname(master, &name, name.count) }
            let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            slavePath = path
            let slave = try syscall("open \(path)") { Glibc.open(path, O_RDWR | O_NOCTTY | O_CLOEXEC) }
            keepOpen = FileDescriptor(rawValue: slave)
            var raw = termios()
            try syscall("tcgetattr") { tcgetattr(slave, &raw) }
            cfmakeraw(&raw)
            try syscall("tcsetattr") { tcsetattr(slave, TCSANOW, &raw) }
            if let linkPath {
                unlink(linkPath)
                try syscall("symlink \(linkPath)") { symlink(path, linkPath) }
            }
            self.linkPath = linkPath
        } catch {
            Glibc.close(master)
            throw error
        }
        endpoint = DescriptorEndpoint(
            emulator: emulator,
            fd: FileDescriptor(rawValue: master),
            name: slavePath,
            logger: logger
        )
    }

    /// The path clients should open.
    public var path: String { linkPath ?? slavePath }

    public func stop() {
        endpoint.stop()
        try? keepOpen.close()
        if let linkPath { unlink(linkPath) }
    }
}
