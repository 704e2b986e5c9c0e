import Drivers
import KioskCore
import StrictTOML

extension KioskConfig {
    /// The door's GPIO lines (`[door]`): a light and a gate, and exit beams. Each line is `17` (an offset on
    /// `gpio_chip`), a line name, or `gpiochip1:3`.
    public struct DoorLines: Sendable, Equatable {
        public var chip = "gpiochip0"
        /// The light's green ("come in") and red (every refusal) lines, and the gate relay's.
        public var signals: [EntranceLightsMachine.Line: GPIOLineAddress] = [:]
        /// The outputs switch on at a low level (a relay board with active-low inputs).
        public var signalsActiveLow = false
        public var greenHold: Duration = .seconds(5)
        public var gatePulse: Duration = .milliseconds(500)
        /// The exit's beam (an exit-only door), and a second one outside it to tell out from in.
        public var beams: [ExitBeamMachine.Beam: GPIOLineAddress] = [:]
        /// A beam is blocked at a low level (a receiver whose output drops when the beam is cut).
        public var beamsActiveLow = false

        public init() {}
    }

    static func parseDoorLines(_ table: StrictTable, into lines: inout DoorLines) throws(TOMLFileError) {
        lines.chip = try table.string("gpio_chip") ?? lines.chip
        func line(_ key: String) throws(TOMLFileError) -> GPIOLineAddress? {
            guard let text = try table.string(key), !text.isEmpty else { return nil }
            do {
                return try GPIOLineAddress(parsing: text, chip: lines.chip)
            } catch {
                throw table.error(key, "'\(text)' — \(error.message)")
            }
        }
        for (key, signal) in [
            ("green_line", EntranceLightsMachine.Line.green), ("red_line", .red), ("gate_line", .gate),
        ] {
            lines.signals[signal] = try line(key)
        }
        lines.signalsActiveLow = try table.bool("lines_active_low") ?? lines.signalsActiveLow
        if let seconds = try table.int("green_hold_seconds", in: 1...60) { lines.greenHold = .seconds(seconds) }
        if let ms = try table.int("gate_pulse_ms", in: 50...10_000) { lines.gatePulse = .milliseconds(ms) }
        lines.beams[.inner] = try line("exit_beam")
        lines.beams[.outer] = try line("exit_beam_outside")
        if lines.beams[.outer] != nil, lines.beams[.inner] == nil {
            throw table.error(
                "exit_beam_outside",
                "needs exit_beam too: the beam inside the door, so that the order of the two tells out from in"
            )
        }
        lines.beamsActiveLow = try table.bool("beams_active_low") ?? lines.beamsActiveLow
        let all = Array(lines.signals.values) + Array(lines.beams.values)
        if Set(all).count < all.count {
            throw table.error("gpio_chip", "two of the door's lines name the same GPIO line: each needs its own")
        }
    }
}
