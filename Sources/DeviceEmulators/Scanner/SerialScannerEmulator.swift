import CLinuxShims
import Drivers
import Glibc
import SystemPackage

/// A serial (or CDC-ACM) barcode scanner on a pty: "scanning" writes a payload with the configured AIM prefix
/// and suffix to the line, as a real scanner in serial mode does. Clients open ``path`` like `/dev/ttyACM0`.
public final class SerialScannerEmulator: Sendable {
    /// The pty's slave, or the stable symlink to it when one was asked for (as udev's `/dev/clup/scanner`).
    public let path: String
    private let linkPath: String?
    public let suffix: ScanFramer.Suffix
    /// Sent before each payload when set, e.g. `]Q1` (AIM id of a QR code).
    public let aimPrefix: String?
    private let io: DescriptorIO
    private let keepOpen: FileDescriptor

    public init(
        suffix: ScanFramer.Suffix = .cr,
        aimPrefix: String? = nil,
        linkPath: String? = nil
    ) throws(SystemCallError) {
        let master = try syscall("posix_openpt") { CLinuxShims_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) }
        do throws(SystemCallError) {
            var name = [CChar](repeating: 0, count: 128)
            try syscall("ptsname") { CLinuxShims_ptsname(master, &name, name.count) }
            let slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // Keep the slave open so the line survives clients coming and going; raw, so bytes pass unchanged.
            let slave = try syscall("open \(slavePath)") { Glibc.open(slavePath, O_RDWR | O_NOCTTY | O_CLOEXEC) }
            var raw = termios()
            try syscall("tcgetattr") { tcgetattr(slave, &raw) }
            cfmakeraw(&raw)
            try syscall("tcsetattr") { tcsetattr(slave, TCSANOW, &raw) }
            if let linkPath {
                unlink(linkPath)
                try syscall("symlink \(linkPath)") { symlink(slavePath, linkPath) }
            }
            path = linkPath ?? slavePath
            self.linkPath = linkPath
            keepOpen = FileDescriptor(rawValue: slave)
        } catch {
            Glibc.close(master)
            throw error
        }
        self.suffix = suffix
        self.aimPrefix = aimPrefix
        io = DescriptorIO(fd: FileDescriptor(rawValue: master), device: "scanner emulator")
    }

    /// Sends one scan: AIM prefix, payload, suffix.
    public func scan(_ payload: String) throws(PrinterError) {
        try send(Array(((aimPrefix ?? "") + payload).utf8) + Self.bytes(of: suffix))
    }

    /// Sends raw bytes (garbage, a cut-off line, a huge line) as a faulty scanner or cable would.
    public func send(_ bytes: [UInt8]) throws(PrinterError) {
        try io.writeAll(bytes, timeout: .seconds(5))
    }

    public static func bytes(of suffix: ScanFramer.Suffix) -> [UInt8] {
        switch suffix {
        case .cr: return [0x0D]
        case .lf: return [0x0A]
        case .crlf: return [0x0D, 0x0A]
        case .tab: return [0x09]
        }
    }

    /// Unplugs the scanner: the line hangs up and the symlink goes, as when a USB scanner is pulled out.
    public func close() {
        try? keepOpen.close()
        try? io.fd.close()
        if let linkPath { unlink(linkPath) }
    }
}
