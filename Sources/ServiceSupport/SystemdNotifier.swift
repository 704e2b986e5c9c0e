import Foundation
import Glibc

/// systemd's notification protocol (sd_notify(3)) without libsystemd: newline-separated `KEY=value`
/// datagrams to the socket in `$NOTIFY_SOCKET` (a path, or an abstract name written `@name`). Outside
/// systemd (no `$NOTIFY_SOCKET`) every call does nothing.
public struct SystemdNotifier: Sendable {
    /// Where to send; nil when not started by systemd with `Type=notify`.
    public let socketPath: String?
    /// How often systemd wants to hear `WATCHDOG=1` (`$WATCHDOG_USEC`, if meant for this process).
    public let watchdogTimeout: Duration?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        let forUs = environment["WATCHDOG_PID"].map { $0 == String(getpid()) } ?? true
        if forUs, let text = environment["WATCHDOG_USEC"], let usec = Int64(text), usec > 0 {
            watchdogTimeout = .microseconds(usec)
        } else {
            watchdogTimeout = nil
        }
    }

    /// Sends `state` (e.g. `READY=1`, `WATCHDOG=1`, `STOPPING=1`, `STATUS=…`); false if it could not.
    @discardableResult
    public func notify(_ state: String) -> Bool {
        guard let socketPath else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }  // abstract namespace
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        let bytes = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), pointer, length) }
            }
        }
        return sent == bytes.count
    }
}
