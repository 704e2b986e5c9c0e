/// Why a printer could not be used, with what the operator should do about it.
///
/// `message` is written for the person at the store or the installer: it names the device and the next step
/// ("printer cover open — close it to resume"), not only what broke. `cause` keeps the underlying error.
public struct PrinterError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The printer URI or a transport option is wrong.
        case invalidAddress
        /// No such device, queue or host.
        case notFound
        /// Another program or a kernel driver holds the device.
        case busy
        /// The kiosk user may not open the device (udev rule, group).
        case accessDenied
        /// The device did not answer in time.
        case timeout
        /// The device went away (unplugged, connection closed).
        case disconnected
        /// Any other I/O failure.
        case io
        /// The printer cannot do what was asked (e.g. a QR that does not fit its limits).
        case unsupported
        /// A printer profile file is wrong.
        case profile
    }

    public let code: Code
    /// Which device or file: a URI, a path, a queue name.
    public let device: String
    public let message: String
    public let cause: (any Error & Sendable)?

    public init(_ code: Code, device: String, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.device = device
        self.message = message
        self.cause = cause
    }

    public var description: String {
        var text = "\(device): \(message)"
        if let cause { text += " [\(cause)]" }
        return text
    }
}

extension PrinterError {
    /// Maps an errno from open/read/write of a device node to an error that says what to do.
    static func fromSystem(_ error: SystemCallError, device: String) -> PrinterError {
        switch error.errno {
        case .noSuchFileOrDirectory, .noSuchAddressOrDevice, .operationNotSupportedByDevice:
            return PrinterError(
                .notFound,
                device: device,
                "no such device — check the cable and the device path",
                cause: error
            )
        case .permissionDenied, .notPermitted:
            return PrinterError(
                .accessDenied,
                device: device,
                "permission denied — install the kioskd udev rules (udev/) or add the kiosk user to the device's group",
                cause: error
            )
        case .resourceBusy:
            return PrinterError(
                .busy,
                device: device,
                "device is busy — another program has it open; stop it and retry",
                cause: error
            )
        case .ioError, .brokenPipe, .connectionReset:
            return PrinterError(
                .disconnected,
                device: device,
                "the printer went away — check power and cable",
                cause: error
            )
        case .connectionRefused:
            return PrinterError(
                .notFound,
                device: device,
                "connection refused — is the printer on and is this its address?",
                cause: error
            )
        case .timedOut, .hostIsDown, .noRouteToHost, .networkUnreachable:
            return PrinterError(
                .timeout,
                device: device,
                "printer not reachable — check the network cable and its IP address",
                cause: error
            )
        default:
            return PrinterError(.io, device: device, "\(error.operation) failed", cause: error)
        }
    }
}

/// An error known only by its text (e.g. a Foundation error that is not `Sendable`).
public struct TextError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
