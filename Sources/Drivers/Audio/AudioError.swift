/// Why the kiosk's voice could not speak, with what to do about it.
public struct AudioError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The output's address is wrong (`[voice] output`).
        case invalidAddress
        /// A library or the voice data is missing (a package to install).
        case missingLibrary
        /// No such sound card, or another program holds it.
        case noDevice
        /// The card or the file took the samples badly (unplugged, disk full).
        case io
    }

    public let code: Code
    /// Which output: an ALSA device name or a folder.
    public let device: String
    public let message: String

    public init(_ code: Code, device: String, _ message: String) {
        self.code = code
        self.device = device
        self.message = message
    }

    public var description: String { "\(device): \(message)" }
}
