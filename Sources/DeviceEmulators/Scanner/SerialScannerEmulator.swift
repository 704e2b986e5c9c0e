import Drivers

/// A serial (or CDC-ACM) barcode scanner on a pty: "scanning" writes a payload with the configured AIM prefix
/// and suffix to the line, as a real scanner in serial mode does. Clients open ``path`` like `/dev/ttyACM0`.
public final class SerialScannerEmulator: Sendable {
    public let suffix: ScanFramer.Suffix
    /// Sent before each payload when set, e.g. `]Q1` (AIM id of a QR code).
    public let aimPrefix: String?
    private let pty: PtyPair
    private let io: DescriptorIO

    /// `linkPath` gives the line a stable name (as udev's `/dev/clup/scanner`), so it can be unplugged and
    /// plugged back in under the same path.
    public init(
        suffix: ScanFramer.Suffix = .cr,
        aimPrefix: String? = nil,
        linkPath: String? = nil
    ) throws(SystemCallError) {
        pty = try PtyPair(linkPath: linkPath)
        self.suffix = suffix
        self.aimPrefix = aimPrefix
        io = DescriptorIO(fd: pty.master, device: "scanner emulator")
    }

    /// The pty's slave, or the stable symlink to it.
    public var path: String { pty.path }

    /// Sends one scan: AIM prefix, payload, suffix.
    public func scan(_ payload: String) throws(PrinterError) {
        try send(Array(((aimPrefix ?? "") + payload).utf8) + Self.bytes(of: suffix))
    }

    /// Sends raw bytes (garbage, a cut-off line, a huge line) as a faulty scanner or cable would.
    public func send(_ bytes: [UInt8]) throws(PrinterError) {
        try io.writeAll(bytes, timeout: .seconds(5))
    }

    /// What the host sent to the scanner (beep or LED commands) within `timeout`.
    public func received(timeout: Duration) throws(PrinterError) -> [UInt8] {
        try io.read(timeout: timeout)
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
        pty.release()
        try? io.fd.close()
    }
}
