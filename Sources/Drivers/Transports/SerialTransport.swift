import CLinuxShims
import Glibc
import SystemPackage

/// A printer on a serial port (RS-232 adapter, CDC-ACM, or a pty in tests), opened the way gpsd's
/// `serial.c` does it: `O_NONBLOCK|O_NOCTTY`, exclusive (`TIOCEXCL`), old termios saved and restored on close,
/// and every `tcsetattr` checked by reading the settings back.
public final class SerialTransport: PrinterTransport {
    public let path: String
    public let settings: SerialSettings
    private var io: DescriptorIO?
    private var saved: termios?

    public init(path: String, settings: SerialSettings) {
        self.path = path
        self.settings = settings
    }

    deinit { close() }

    public var address: String {
        "serial://\(path)?baud=\(settings.baud)&flow=\(settings.flowControl.rawValue)"
    }
    public var hasBackChannel: Bool { true }
    public var isOpen: Bool { io != nil }

    public func open() throws(PrinterError) {
        guard io == nil else { return }
        guard settings.speed != nil else {
            throw PrinterError(
                .invalidAddress,
                device: address,
                "\(settings.baud) baud is not supported — use one of \(SerialSettings.supportedBauds)"
            )
        }
        let raw: CInt
        do {
            raw = try syscall("open") { Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) }
        } catch {
            throw PrinterError.fromSystem(error, device: address)
        }
        let fd = FileDescriptor(rawValue: raw)
        do {
            guard isatty(raw) == 1 else {
                throw PrinterError(
                    .invalidAddress,
                    device: address,
                    "\(path) is not a serial port — use file:// for usblp nodes"
                )
            }
            try syscall("ioctl(TIOCEXCL)") { CLinuxShims_tiocexcl(raw) }
            var old = termios()
            try syscall("tcgetattr") { tcgetattr(raw, &old) }
            var wanted = settings.termios(from: old)
            try syscall("tcsetattr") { tcsetattr(raw, TCSANOW, &wanted) }
            var actual = termios()
            try syscall("tcgetattr") { tcgetattr(raw, &actual) }
            guard cfgetospeed(&actual) == cfgetospeed(&wanted),
                actual.c_cflag & tcflag_t(CSIZE) == tcflag_t(CS8)
            else {
                throw PrinterError(
                    .unsupported,
                    device: address,
                    "the port did not accept \(settings.baud) baud 8N1 — check the adapter and the printer's DIP switches"
                )
            }
            // Only output is dropped (what an earlier owner left queued). Input is kept: on a scanner it may be
            // the scan that is arriving right now.
            try syscall("tcflush") { tcflush(raw, TCOFLUSH) }
            saved = old
            io = DescriptorIO(fd: fd, device: address, hangUp: .pollHangUpOrEIO)
        } catch let error as PrinterError {
            _ = CLinuxShims_tiocnxcl(raw)
            try? fd.close()
            throw error
        } catch let error as SystemCallError {
            _ = CLinuxShims_tiocnxcl(raw)
            try? fd.close()
            throw PrinterError.fromSystem(error, device: address)
        } catch {
            try? fd.close()
            throw PrinterError(.io, device: address, "open failed", cause: TextError("\(error)"))
        }
    }

    public func write(_ bytes: [UInt8], timeout: Duration) throws(PrinterError) {
        try requireOpen().writeAll(bytes, timeout: timeout)
    }

    public func read(timeout: Duration) throws(PrinterError) -> [UInt8] {
        try requireOpen().read(timeout: timeout)
    }

    /// Whether a modem input line is asserted: a cheap IR take-sensor can be wired to CTS or DSR.
    public func modemLine(_ line: ModemLine) throws(PrinterError) -> Bool? {
        let io = try requireOpen()
        var bits: CInt = 0
        do {
            try syscall("ioctl(TIOCMGET)") { CLinuxShims_tiocmget(io.fd.rawValue, &bits) }
        } catch {
            throw PrinterError.fromSystem(error, device: address)
        }
        switch line {
        case .cts: return bits & TIOCM_CTS != 0
        case .dsr: return bits & TIOCM_DSR != 0
        }
    }

    private func requireOpen() throws(PrinterError) -> DescriptorIO {
        guard let io else { throw PrinterError(.disconnected, device: address, "port not open") }
        return io
    }

    public func close() {
        guard let io else { return }
        let raw = io.fd.rawValue
        if var old = saved {
            // Let queued output drain briefly, then put the port back as we found it.
            _ = tcsetattr(raw, TCSADRAIN, &old)
        }
        _ = CLinuxShims_tiocnxcl(raw)
        try? io.fd.close()
        self.io = nil
        saved = nil
    }
}
