import Foundation
import Glibc

/// The receiving end of systemd's notification socket, as systemd binds it for a `Type=notify` service:
/// a Unix datagram socket whose path goes in `$NOTIFY_SOCKET`. Waits with `Task.sleep`, never blocking
/// a thread of the cooperative pool.
final class NotifySocket {
    let path: String
    private let fd: CInt

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(directory: String) throws {
        path = "\(directory)/notify.sock"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            close(fd)
            throw Failure(description: "cannot bind \(path): errno \(errno)")
        }
    }

    deinit { close(fd) }

    /// The next datagram, or nil after `timeout`.
    func next(timeout: Duration) async -> String? {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        repeat {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { return String(decoding: buffer.prefix(n), as: UTF8.self) }
            try? await Task.sleep(for: .milliseconds(5))
        } while ContinuousClock.now < deadline
        return nil
    }

    /// Every datagram that arrives within `duration`.
    func collect(for duration: Duration) async -> [String] {
        let deadline = ContinuousClock.now + duration
        var all: [String] = []
        while ContinuousClock.now < deadline {
            if let message = await next(timeout: deadline - ContinuousClock.now) { all.append(message) }
        }
        return all
    }
}
