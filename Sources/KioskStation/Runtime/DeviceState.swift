/// A device's state as the door's status reports its exit key, light and gate, and exit beams: in JSON the
/// words the pages and the fleet read, `ready`, `disconnected`, `blocked: <what to do>` or
/// `unavailable: <what to do>`.
public enum DeviceState: Sendable, Hashable, Codable, CustomStringConvertible {
    case ready
    /// Unplugged or unreachable: tried again, at once when its device node comes back.
    case disconnected
    /// Working, but something is in the way (a beam held blocked): what to do about it.
    case blocked(String)
    /// Cannot be used: why, and what to do.
    case unavailable(String)

    public var description: String {
        switch self {
        case .ready: "ready"
        case .disconnected: "disconnected"
        case .blocked(let what): "blocked: \(what)"
        case .unavailable(let why): "unavailable: \(why)"
        }
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        switch text {
        case "ready": self = .ready
        case "disconnected": self = .disconnected
        case _ where text.hasPrefix("blocked: "): self = .blocked(String(text.dropFirst("blocked: ".count)))
        case _ where text.hasPrefix("unavailable: "):
            self = .unavailable(String(text.dropFirst("unavailable: ".count)))
        default: self = .unavailable(text)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
