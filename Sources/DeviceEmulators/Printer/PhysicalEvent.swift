/// Something that happens to the emulated printer in the physical world.
public enum PhysicalEvent: Sendable, Equatable, CustomStringConvertible {
    /// The customer takes the ticket from the output (the presenter sensor clears).
    case take
    case paperNearEnd(Bool)
    case paperEnd(Bool)
    case coverOpen(Bool)
    /// The printer is switched offline (or its power/offline button is used).
    case offline(Bool)
    case cutterError(Bool)
    /// A fault that strikes once `afterBytes` more bytes of print data were processed: paper running out, or
    /// the cover opened, in the middle of a ticket.
    indirect case during(PhysicalEvent, afterBytes: Int)
    /// A fault that strikes the moment the next ticket is cut: the roll ends at the cut (the ticket came out
    /// whole and waits in the presenter).
    indirect case atNextCut(PhysicalEvent)

    /// Parses the control-channel form: `take`, `paper-near-end on`, `paper-end off`, `cover on`,
    /// `offline on`, `cutter-error off` (`on`/`off`, `1`/`0` or `true`/`false`); `at-cut paper-end on` arms a
    /// fault for the next cut.
    public init?(command: String) {
        let words = command.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let verb = words.first else { return nil }
        if verb == "at-cut" {
            guard let fault = PhysicalEvent(command: words.dropFirst().joined(separator: " ")), fault != .take else {
                return nil
            }
            self = .atNextCut(fault)
            return
        }
        if verb == "take" && words.count == 1 {
            self = .take
            return
        }
        guard words.count == 2 else { return nil }
        let on: Bool
        switch words[1] {
        case "on", "1", "true": on = true
        case "off", "0", "false": on = false
        default: return nil
        }
        switch verb {
        case "paper-near-end": self = .paperNearEnd(on)
        case "paper-end": self = .paperEnd(on)
        case "cover", "cover-open": self = .coverOpen(on)
        case "offline": self = .offline(on)
        case "cutter-error": self = .cutterError(on)
        default: return nil
        }

    }

    public var description: String {
        func onOff(_ b: Bool) -> String { b ? "on" : "off" }
        switch self {
        case .take: return "take"
        case .paperNearEnd(let b): return "paper-near-end \(onOff(b))"
        case .paperEnd(let b): return "paper-end \(onOff(b))"
        case .coverOpen(let b): return "cover \(onOff(b))"
        case .offline(let b): return "offline \(onOff(b))"
        case .cutterError(let b): return "cutter-error \(onOff(b))"
        case .during(let event, let bytes): return "\(event) after \(bytes) bytes"
        case .atNextCut(let event): return "at-cut \(event)"
        }
    }
}
