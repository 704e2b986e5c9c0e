import Foundation
import Glibc

/// A blocking HTTP/1.1 client on one keep-alive loopback connection: cheap enough to poll `GET /status` in
/// a tight loop, and able to follow `GET /events`. Used from one dedicated thread at a time, never the
/// cooperative pool.
final class LoopbackHTTP: @unchecked Sendable {
    private let fd: CInt
    private var buffer: [UInt8] = []
    /// The head of the last answer read (status line and fields, as sent).
    private(set) var head = ""

    /// A connection to 127.0.0.1:`port`, from the loopback address `source` (127.0.0.0/8: each is a client
    /// of its own to the server) when given.
    init(port: Int, from source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw BenchError("cannot bind to \(source)") }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard fd >= 0, connected == 0 else { throw BenchError("cannot connect to 127.0.0.1:\(port)") }
        var one: CInt = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<CInt>.size))
    }

    deinit { close(fd) }

    private func send(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { throw BenchError("the kiosk closed the connection") }
        buffer += chunk.prefix(n)
    }

    private func take(until marker: [UInt8]) throws -> [UInt8] {
        while true {
            if buffer.count >= marker.count {
                for i in 0...(buffer.count - marker.count) where buffer[i] == marker[0] {
                    if Array(buffer[i..<(i + marker.count)]) == marker {
                        let head = Array(buffer[..<i])
                        buffer.removeFirst(i + marker.count)
                        return head
                    }
                }
            }
            try fill()
        }
    }

    /// Logs the system manager in to the console with `token`: the session cookie (`clup_console=…`) to send.
    func consoleSession(token: String) throws -> String {
        _ = try request(
            "POST",
            "/console/login",
            json: "token=\(token)",
            contentType: "application/x-www-form-urlencoded"
        )
        guard
            let field = head.split(separator: "\r\n").first(where: {
                $0.lowercased().hasPrefix("set-cookie: clup_console=")
            })
        else { throw BenchError("no console session: \(head)") }
        return String(field.dropFirst("set-cookie: ".count).prefix { $0 != ";" })
    }

    /// One GET on the kept-alive connection; the body (the server sends Content-Length for JSON).
    func get(_ path: String) throws -> [UInt8] {
        try request("GET", path)
    }

    /// One request on the kept-alive connection, with a body (`json`, of `contentType`) if given; the answer's
    /// body.
    func request(
        _ method: String,
        _ path: String,
        json: String? = nil,
        bearer: String? = nil,
        forwardedFor: String? = nil,
        headers: [String: String] = [:],
        contentType: String = "application/json"
    ) throws -> [UInt8] {
        begin(
            method,
            path,
            json: json,
            bearer: bearer,
            forwardedFor: forwardedFor,
            headers: headers,
            contentType: contentType
        )
        return try answer(to: path)
    }

    /// Sends a request without waiting for its answer (a long-poll); ``answer(to:)`` reads it.
    func begin(
        _ method: String,
        _ path: String,
        json: String? = nil,
        bearer: String? = nil,
        forwardedFor: String? = nil,
        headers: [String: String] = [:],
        contentType: String = "application/json"
    ) {
        let auth =
            (bearer.map { "Authorization: Bearer \($0)\r\n" } ?? "")
            + (forwardedFor.map { "X-Forwarded-For: \($0)\r\n" } ?? "")
            + headers.map { "\($0.key): \($0.value)\r\n" }.joined()
        if let json {
            send(
                "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)Content-Type: \(contentType)\r\n"
                    + "Content-Length: \(json.utf8.count)\r\n\r\n\(json)"
            )
        } else {
            send("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)Content-Length: 0\r\n\r\n")
        }
    }

    /// The body of the answer to the request sent last.
    func answer(to path: String) throws -> [UInt8] {
        self.head = String(decoding: try take(until: [13, 10, 13, 10]), as: UTF8.self)
        let head = self.head.lowercased()
        if head.hasPrefix("http/1.1 204") || head.hasPrefix("http/1.1 304") { return [] }
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { throw BenchError("no content-length in the answer to \(path)") }
        while buffer.count < length { try fill() }
        defer { buffer.removeFirst(length) }
        return Array(buffer.prefix(length))
    }

    /// Starts following server-sent events on this connection (for the client `forwardedFor`, when given).
    func openEvents(_ path: String, forwardedFor: String? = nil) throws {
        let client = forwardedFor.map { "X-Forwarded-For: \($0)\r\n" } ?? ""
        send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(client)Accept: text/event-stream\r\n\r\n")
        _ = try take(until: [13, 10, 13, 10])
    }

    /// A GET (for the client `forwardedFor`) timed to its answer's first byte; the time and the whole answer's
    /// size (head and body).
    func timedGet(_ path: String, forwardedFor: String) throws -> (firstByte: Duration, bytes: Int) {
        precondition(buffer.isEmpty)
        let sent = ContinuousClock.now
        send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: \(forwardedFor)\r\nAccept: text/html\r\n\r\n")
        try fill()
        let firstByte = ContinuousClock.now - sent
        let head = try take(until: [13, 10, 13, 10])
        let text = String(decoding: head, as: UTF8.self).lowercased()
        guard let line = text.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { throw BenchError("no content-length in the answer to \(path)") }
        while buffer.count < length { try fill() }
        buffer.removeFirst(length)
        return (firstByte, head.count + 4 + length)
    }

    /// The next event's data.
    func nextEvent() throws -> [UInt8] {
        let event = try take(until: [10, 10])
        guard let start = String(decoding: event, as: UTF8.self).range(of: "data: ") else { return try nextEvent() }
        let text = String(decoding: event, as: UTF8.self)
        return Array(text[start.upperBound...].prefix { $0 != "\n" }.utf8)
    }
}
