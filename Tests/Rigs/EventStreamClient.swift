import Foundation
import Glibc

/// A minimal HTTP/1.1 client on a plain socket for `GET /events`: reads server-sent events as a browser's
/// EventSource does, without blocking a thread of the cooperative pool (polls, then `Task.sleep`s).
final class EventStreamClient {
    private let fd: CInt
    private var buffer: [UInt8] = []
    private(set) var headers = ""

    init(port: Int, path: String = "/events", headers: [String: String] = [:]) throws {
        fd = try LoopbackSocket.connect(port: port)
        let extra = headers.map { "\($0.key): \($0.value)\r\n" }.joined()
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\(extra)\r\n"
        _ = Array(request.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(fd) }

    /// Reads what is there; false when the server closed the stream.
    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 { buffer += chunk.prefix(n) }
        return n != 0
    }

    /// The data of the next event (chunked transfer framing removed), or nil at `timeout` or end of stream.
    func next(timeout: Duration = .seconds(5)) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard fill() else { return nil }
            if headers.isEmpty, let end = find([13, 10, 13, 10]) {
                headers = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
            }
            if !headers.isEmpty, let end = find([10, 10]) {
                let text = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 2)
                // Hummingbird streams with chunked encoding: the size lines sit between events.
                let data = text.split(separator: "\n").filter { $0.hasPrefix("data: ") }.map { $0.dropFirst(6) }
                if !data.isEmpty { return data.joined(separator: "\n") }
                continue
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    /// Whether the server ended the stream within `timeout`.
    func closed(within timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if !fill() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Whether the response ended (its last chunk arrived, or the connection closed) within `timeout`.
    func ended(within timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if !fill() || find(Array("\r\n0\r\n\r\n".utf8)) != nil || buffer.starts(with: Array("0\r\n\r\n".utf8)) {
                return true
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    private func find(_ needle: [UInt8]) -> Int? {
        guard buffer.count >= needle.count else { return nil }
        for i in 0...(buffer.count - needle.count) where buffer[i] == needle[0] {
            if Array(buffer[i..<(i + needle.count)]) == needle { return i }
        }
        return nil
    }
}
