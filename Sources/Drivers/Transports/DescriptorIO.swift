import Glibc
import SystemPackage

/// Timed, non-blocking reads and writes on one file descriptor: the shared core of the TCP, serial and
/// usblp transports (and the emulator's endpoints).
public struct DescriptorIO: Sendable {
    public let fd: FileDescriptor
    /// Names the device in errors.
    public let device: String
    /// How this kind of descriptor says the other side went away.
    public let hangUp: HangUp

    /// How a descriptor reports that its device went away.
    public enum HangUp: Sendable {
        /// Sockets, pipes and usblp: a read of 0 bytes is the end of file.
        case endOfFile
        /// Terminals (serial ports, CDC-ACM, ptys): a raw tty with VMIN=0/VTIME=0 may report POLLIN and then
        /// read 0 bytes while a line is still on its way through the line discipline. There 0 bytes is "nothing
        /// yet"; a hang-up shows as POLLHUP with nothing to read, or as EIO.
        case pollHangUpOrEIO
    }

    public init(fd: FileDescriptor, device: String, hangUp: HangUp = .endOfFile) {
        self.fd = fd
        self.device = device
        self.hangUp = hangUp
    }

    /// Writes everything within `timeout`, waiting for the device when it is full (flow control).
    public func writeAll(_ bytes: [UInt8], timeout: Duration) throws(PrinterError) {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var offset = 0
        while offset < bytes.count {
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else {
                throw PrinterError(
                    .timeout,
                    device: device,
                    "printer accepted only \(offset) of \(bytes.count) bytes in \(timeout) — is it paused, out of "
                        + "paper or holding flow control?"
                )
            }
            let revents: Int16
            do {
                revents = try pollOne(fd.rawValue, events: Int16(POLLOUT), timeout: remaining)
            } catch {
                throw PrinterError.fromSystem(error, device: device)
            }
            if revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
                throw PrinterError(
                    .disconnected,
                    device: device,
                    "the device closed the connection — check its power and cable"
                )
            }
            guard revents & Int16(POLLOUT) != 0 else { continue }
            let n = bytes.withUnsafeBytes { buffer in
                Glibc.write(fd.rawValue, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if n < 0 {
                let code = Glibc.errno
                if code == EINTR || code == EAGAIN { continue }
                throw PrinterError.fromSystem(
                    SystemCallError(operation: "write", errno: Errno(rawValue: code)),
                    device: device
                )
            }
            offset += n
        }
    }

    /// Reads what arrives within `timeout` (at most `limit` bytes); `[]` on timeout.
    /// The other side going away (``HangUp``) is reported as `disconnected`.
    public func read(timeout: Duration, limit: Int = 4096) throws(PrinterError) -> [UInt8] {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var remaining = timeout
        while true {
            let revents: Int16
            do {
                revents = try pollOne(fd.rawValue, events: Int16(POLLIN), timeout: remaining)
            } catch {
                throw PrinterError.fromSystem(error, device: device)
            }
            if revents == 0 { return [] }
            if revents & Int16(POLLNVAL) != 0 {
                throw PrinterError(.disconnected, device: device, "the device was closed")
            }
            let hungUp = revents & Int16(POLLHUP | POLLERR) != 0
            if hangUp == .pollHangUpOrEIO && hungUp && revents & Int16(POLLIN) == 0 { throw closedByDevice }
            var buffer = [UInt8](repeating: 0, count: limit)
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd.rawValue, $0.baseAddress, $0.count) }
            if n > 0 { return Array(buffer[0..<n]) }
            if n < 0 {
                let code = Glibc.errno
                if code == EINTR || code == EAGAIN { return [] }
                if code == EIO && hangUp == .pollHangUpOrEIO { throw closedByDevice }
                throw PrinterError.fromSystem(
                    SystemCallError(operation: "read", errno: Errno(rawValue: code)),
                    device: device
                )
            }
            // 0 bytes: the end of a stream; on a tty only when it also hung up, else the line is still coming.
            if hangUp == .endOfFile || hungUp { throw closedByDevice }
            remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else { return [] }
            // Let the line discipline catch up rather than spin on a POLLIN that has nothing behind it yet.
            usleep(UInt32(min(remaining, .milliseconds(2)).milliseconds * 1000))
            remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else { return [] }
        }
    }

    private var closedByDevice: PrinterError {
        PrinterError(.disconnected, device: device, "the device closed the connection — check its power and cable")
    }
}
