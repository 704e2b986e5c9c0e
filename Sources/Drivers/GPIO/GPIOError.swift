/// Why a GPIO line (the entrance's light, gate or beam) could not be used, with what to do about it.
public struct GPIOError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The line's address is wrong (`[door]` keys).
        case invalidAddress
        /// libgpiod is missing (a package to install).
        case missingLibrary
        /// No such chip, or no such line on it.
        case notFound
        /// Another program holds the line.
        case busy
        /// The kiosk user may not open the chip (udev rule, group).
        case accessDenied
        /// Any other failure of the chip (an adapter unplugged).
        case io
    }

    public let code: Code
    /// Which line: `gpiochip0:17`.
    public let device: String
    public let message: String

    public init(_ code: Code, device: String, _ message: String) {
        self.code = code
        self.device = device
        self.message = message
    }

    public var description: String { "\(device): \(message)" }
}
