import Drivers
import Logging

/// A serial printer on a pseudo-terminal (``PtyPair``): clients open ``path`` like `/dev/ttyUSB0` and set
/// baud rate and flow control with termios as on a real port.
public final class PtyEndpoint: Sendable {
    private let pty: PtyPair
    private let endpoint: DescriptorEndpoint

    public init(emulator: PrinterEmulator, linkPath: String? = nil, logger: Logger) throws(SystemCallError) {
        pty = try PtyPair(linkPath: linkPath)
        endpoint = DescriptorEndpoint(emulator: emulator, fd: pty.master, name: pty.slavePath, logger: logger)
    }

    public var slavePath: String { pty.slavePath }
    public var linkPath: String? { pty.linkPath }

    /// The path clients should open.
    public var path: String { pty.path }

    public func stop() {
        endpoint.stop()
        pty.release()
    }
}
