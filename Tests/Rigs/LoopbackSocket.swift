import Glibc

/// A TCP connection to a port on 127.0.0.1, from a chosen loopback address when given (any 127.x.y.z, so one
/// test can be many clients): what the tests' raw HTTP clients open.
enum LoopbackSocket {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func connect(port: Int, from source: String? = nil) throws -> CInt {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        if let source {
            guard call(Glibc.bind, fd, address(source)) == 0 else {
                let error = errno
                close(fd)
                throw Failure(description: "bind to \(source): errno \(error)")
            }
        }
        guard call(Glibc.connect, fd, address("127.0.0.1", port: port)) == 0 else {
            let error = errno
            close(fd)
            throw Failure(description: "connect to port \(port): errno \(error)")
        }
        return fd
    }

    private static func address(_ ip: String, port: Int = 0) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(ip)
        return address
    }

    private static func call(
        _ function: (CInt, UnsafePointer<sockaddr>, socklen_t) -> CInt,
        _ fd: CInt,
        _ address: sockaddr_in
    ) -> CInt {
        var address = address
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                function(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }
}
