import Glibc
import SystemPackage

/// Timed, non-blocking reads and writes on one file descriptor: the shared core of the TCP, serial and
/// usblp transports (and the emulator's endpoints).
public struct DescriptorIO: Sendable {
    public let fd: FileDescriptor
    /// Names the device in errors.
    public let device: String

    public init(fd: FileDescriptor, device: String) {
        self.fd = fd
        self.device = device
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
    /// End of file means the other side went away and is reported as `disconnected`.
    public func read(timeout: Duration, limit: Int = 4096) throws(PrinterError) -> [UInt8] {
        let revents: Int16
        do {
            revents = try pollOne(fd.rawValue, events: Int16(POLLIN), timeout: timeout)
        } catch {
            throw PrinterError.fromSystem(error, device: device)
        }
        if revents == 0 { return [] }
        if revents & Int16(POLLNVAL) != 0 {
            throw PrinterError(.disconnected, device: device, "the device was closed")
        }
        var buffer = [UInt8](repeating: 0, count: limit)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd.rawValue, $0.baseAddress, $0.count) }
        if n < 0 {
            let code = Glibc.errno
            if code == EINTR || code == EAGAIN { return [] }
            throw PrinterError.fromSystem(
                SystemCallError(operation: "read", errno: Errno(rawValue: code)),
                device: device
            )
        }
        if n == 0 {
            throw PrinterError(
                .disconnected,
                device: device,
                "the device closed the connection — check its power and cable"
            )
        }
        return Array(buffer[0..<n])
    }
}
