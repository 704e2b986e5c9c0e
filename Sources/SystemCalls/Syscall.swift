import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// SystemCalls: the one way our Swift code calls the kernel — ``syscall(_:_:)`` retries `EINTR` and keeps the
/// errno with the call's name; ``pollOne(_:events:timeout:)`` waits on one descriptor.
public enum SystemCalls {}

/// A failed system call: the operation's name and its errno (swift-nio's `IOError` in spirit).
public struct SystemCallError: Error, Sendable, CustomStringConvertible {
    public let operation: String
    public let errno: Errno

    public init(operation: String, errno: Errno) {
        self.operation = operation
        self.errno = errno
    }

    public var description: String { "\(operation): \(errno) (errno \(errno.rawValue))" }
}

/// Runs a system call, retrying on `EINTR`, and throws the errno with the operation's name on -1.
/// Every syscall in Drivers, DeviceEmulators and ServiceSupport goes through here (swift-nio `NIOPosix/System.swift`).
@discardableResult
@inline(__always)
public func syscall<T: FixedWidthInteger>(
    _ operation: @autoclosure () -> String,
    _ body: () -> T
) throws(SystemCallError) -> T {
    while true {
        let result = body()
        if result == -1 {
            let code = Glibc.errno
            if code == EINTR { continue }
            throw SystemCallError(operation: operation(), errno: Errno(rawValue: code))
        }
        return result
    }
}

/// Waits up to `timeout` for `events` on one descriptor. Returns the revents, or 0 on timeout.
public func pollOne(_ fd: CInt, events: Int16, timeout: Duration) throws(SystemCallError) -> Int16 {
    var pfd = pollfd(fd: fd, events: events, revents: 0)
    let ms = timeout.milliseconds
    let n = try syscall("poll") { poll(&pfd, 1, CInt(clamping: ms)) }
    return n == 0 ? 0 : pfd.revents
}

extension Duration {
    /// Whole milliseconds, rounded up so a short positive timeout never becomes a busy "0".
    public var milliseconds: Int64 {
        let (s, atto) = components
        let ms = s * 1000 + atto / 1_000_000_000_000_000
        return atto % 1_000_000_000_000_000 > 0 ? ms + 1 : ms
    }
}
