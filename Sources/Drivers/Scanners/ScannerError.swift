/// Why a scanner (or the door's exit-key input) could not be used, with what to do about it — in words about the
/// scanner: the serial and descriptor layer it shares with the printers reports ``PrinterError``s, which the
/// scanner readers turn into these.
public struct ScannerError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The scanner's address is wrong.
        case invalidAddress
        /// No such device node.
        case notFound
        /// Another program holds (or has grabbed) the device.
        case busy
        /// The kiosk user may not open the device (udev rule, group).
        case accessDenied
        /// The scanner went away (unplugged, hung up).
        case disconnected
        /// The scanner cannot do what was asked (a command to a keyboard-wedge scanner).
        case unsupported
        /// Any other I/O failure.
        case io
    }

    public let code: Code
    /// Which device: an address or a path.
    public let device: String
    public let message: String
    public let cause: (any Error & Sendable)?

    public init(_ code: Code, device: String, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.device = device
        self.message = message
        self.cause = cause
    }

    /// The scanner's account of an error from the layer it shares with the printers.
    init(_ error: PrinterError) {
        let device = error.device
        switch error.code {
        case .notFound:
            self.init(
                .notFound,
                device: device,
                "no scanner at this path — check its cable and the address in [door] scanner",
                cause: error
            )
        case .accessDenied:
            self.init(
                .accessDenied,
                device: device,
                "permission denied — install the kioskd udev rules (udev/) or add the kiosk user to the device's group",
                cause: error
            )
        case .disconnected, .timeout:
            self.init(.disconnected, device: device, "the scanner went away — check its cable", cause: error)
        case .busy: self.init(.busy, device: device, error.message, cause: error.cause)
        case .invalidAddress: self.init(.invalidAddress, device: device, error.message, cause: error.cause)
        case .unsupported: self.init(.unsupported, device: device, error.message, cause: error.cause)
        case .io, .profile: self.init(.io, device: device, error.message, cause: error.cause)
        }
    }

    public var description: String {
        var text = "\(device): \(message)"
        if let cause { text += " [\(cause)]" }
        return text
    }
}

/// Runs `body`, reporting a shared-layer failure as the scanner's.
@inline(__always)
func asScanner<T>(_ body: () throws(PrinterError) -> T) throws(ScannerError) -> T {
    do {
        return try body()
    } catch {
        throw ScannerError(error)
    }
}
