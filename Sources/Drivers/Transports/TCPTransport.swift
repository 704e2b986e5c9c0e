import Glibc
import SystemPackage

/// A network printer on a raw TCP port (9100, "JetDirect"/AppSocket), with connect and read timeouts.
public final class TCPTransport: PrinterTransport {
    public let host: String
    public let port: Int
    public let connectTimeout: Duration
    private var io: DescriptorIO?

    public init(host: String, port: Int = 9100, connectTimeout: Duration = .seconds(3)) {
        self.host = host
        self.port = port
        self.connectTimeout = connectTimeout
    }

    deinit { close() }

    public var address: String { "tcp://\(host.contains(":") ? "[\(host)]" : host):\(port)" }
    public var hasBackChannel: Bool { true }
    public var isOpen: Bool { io != nil }

    public func open() throws(PrinterError) {
        guard io == nil else { return }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw PrinterError(
                .notFound,
                device: address,
                "cannot resolve '\(host)': \(String(cString: gai_strerror(rc))) — check the printer's host name or IP"
            )
        }
        defer { freeaddrinfo(list) }
        var lastError = PrinterError(.notFound, device: address, "no address to connect to")
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            do {
                io = DescriptorIO(fd: try connect(info.pointee), device: address)
                return
            } catch {
                lastError = error
            }
            entry = info.pointee.ai_next
        }
        throw lastError
    }

    private func connect(_ info: addrinfo) throws(PrinterError) -> FileDescriptor {
        let raw: CInt
        do {
            raw = try syscall("socket") {
                socket(
                    info.ai_family,
                    Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                        | Int32(SOCK_CLOEXEC.rawValue),
                    0
                )
            }
        } catch {
            throw PrinterError.fromSystem(error, device: address)
        }
        let fd = FileDescriptor(rawValue: raw)
        do {
            if Glibc.connect(raw, info.ai_addr, info.ai_addrlen) != 0 && errno != EINPROGRESS {
                throw SystemCallError(operation: "connect", errno: Errno(rawValue: errno))
            }
            let revents = try pollOne(raw, events: Int16(POLLOUT), timeout: connectTimeout)
            if revents == 0 {
                throw PrinterError(
                    .timeout,
                    device: address,
                    "no answer within \(connectTimeout) — check that the printer is on and on the network"
                )
            }
            var soError: CInt = 0
            var length = socklen_t(MemoryLayout<CInt>.size)
            try syscall("getsockopt") { getsockopt(raw, SOL_SOCKET, SO_ERROR, &soError, &length) }
            if soError != 0 { throw SystemCallError(operation: "connect", errno: Errno(rawValue: soError)) }
            var one: CInt = 1
            // Status replies are tiny; do not let Nagle hold a status request back.
            try syscall("setsockopt") {
                setsockopt(raw, CInt(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<CInt>.size))
            }
            try syscall("setsockopt") {
                setsockopt(raw, SOL_SOCKET, SO_KEEPALIVE, &one, socklen_t(MemoryLayout<CInt>.size))
            }
            return fd
        } catch let error as PrinterError {
            try? fd.close()
            throw error
        } catch let error as SystemCallError {
            try? fd.close()
            throw PrinterError.fromSystem(error, device: address)
        } catch {
            try? fd.close()
            throw PrinterError(.io, device: address, "connect failed", cause: TextError("\(error)"))
        }
    }

    public func write(_ bytes: [UInt8], timeout: Duration) throws(PrinterError) {
        try requireOpen().writeAll(bytes, timeout: timeout)
    }

    public func read(timeout: Duration) throws(PrinterError) -> [UInt8] {
        try requireOpen().read(timeout: timeout)
    }

    private func requireOpen() throws(PrinterError) -> DescriptorIO {
        guard let io else { throw PrinterError(.disconnected, device: address, "not connected") }
        return io
    }

    public func close() {
        if let io { try? io.fd.close() }
        io = nil
    }
}
