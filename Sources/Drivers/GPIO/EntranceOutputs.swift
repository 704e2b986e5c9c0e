import KioskCore

/// The entrance's signal lines: the light's green and red, and the gate (or door opener) relay. What to show
/// and when is ``EntranceLightsMachine``'s; this only sets the lines it names.
public protocol EntranceOutputs: AnyObject {
    /// Where the lines are, for the log: `green gpiochip0:17, red gpiochip0:27`.
    var address: String { get }
    func set(_ line: EntranceLightsMachine.Line, on: Bool) throws(GPIOError)
    /// Lets go of the lines (each falls back to what the chip does alone: off, on a board wired as documented).
    func close()
}

/// The signal lines on GPIO chips, through libgpiod; "on" is the active level (high, or low with
/// `activeLow`, for a relay board that switches on a low input).
public final class GPIODEntranceOutputs: EntranceOutputs {
    private let chips: GPIODChips
    private var lines: [EntranceLightsMachine.Line: OpaquePointer] = [:]
    public let address: String

    public init(_ wiring: [EntranceLightsMachine.Line: GPIOLineAddress], activeLow: Bool) throws(GPIOError) {
        let ordered = EntranceLightsMachine.Line.allCases.compactMap { line in wiring[line].map { (line, $0) } }
        address = ordered.map { "\($0.0.rawValue) \($0.1)" }.joined(separator: ", ")
        chips = try GPIODChips(for: address)
        for (line, where_) in ordered {
            lines[line] = try chips.output(where_, activeLow: activeLow)
        }
    }

    public func set(_ line: EntranceLightsMachine.Line, on: Bool) throws(GPIOError) {
        guard let handle = lines[line] else { return }  // not wired: nothing to show
        guard chips.api.gpiod_line_set_value(handle, on ? 1 : 0) == 0 else {
            throw GPIOError(
                .io,
                device: address,
                "cannot set the \(line.rawValue) line — is the GPIO adapter still there?"
            )
        }
    }

    public func close() {
        lines = [:]
        chips.close()
    }
}
