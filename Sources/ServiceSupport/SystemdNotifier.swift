import Foundation
import Glibc
import SystemCalls

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
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }  // abstract namespace
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        let bytes = Array(state.utf8)
        do {
            let fd = try syscall("socket(AF_UNIX)") {
                socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            }
            defer { close(fd) }
            let sent = try withUnsafePointer(to: &address) { pointer in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    try bytes.withUnsafeBytes { buffer in
                        try syscall("sendto(\(socketPath))") {
                            sendto(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), socketAddress, length)
                        }
                    }
                }
            }
            return sent == bytes.count
        } catch {
            return false
        }
    }
}
