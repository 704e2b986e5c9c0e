import Drivers
import Glibc
import SystemPackage

/// A listening IPv4 TCP socket with a timed, non-blocking accept.
struct ListeningSocket: Sendable {
    let fd: FileDescriptor
    let port: Int

    init(host: String, port: Int) throws(SystemCallError) {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &addr.sin_addr)
        let raw = try syscall("socket") {
            socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        do throws(SystemCallError) {
            var one: CInt = 1
            try syscall("setsockopt") {
                setsockopt(raw, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<CInt>.size))
            }
            let bound = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(raw, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            if bound != 0 { throw SystemCallError(operation: "bind \(host):\(port)", errno: Errno(rawValue: errno)) }
            try syscall("listen") { listen(raw, 8) }
            var actual = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &actual) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(raw, $0, &length) }
            }
            self.port = Int(UInt16(bigEndian: actual.sin_port))
        } catch {
            Glibc.close(raw)
            throw error
        }
        fd = FileDescriptor(rawValue: raw)
    }

    /// A connected client (non-blocking, close-on-exec, no Nagle), or nil if none came within `timeout`.
    func accept(timeout: Duration) -> FileDescriptor? {
        guard let revents = try? pollOne(fd.rawValue, events: Int16(POLLIN), timeout: timeout), revents != 0,
            let client = try? syscall("accept", { Glibc.accept(fd.rawValue, nil, nil) })
        else { return nil }
        _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        var one: CInt = 1
        setsockopt(client, CInt(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<CInt>.size))
        return FileDescriptor(rawValue: client)
    }

    func close() {
        try? fd.close()
    }
}
