/// Which key on an input device (a USB foot switch, a button box) counts one person leaving the store.
///
/// A press counts once: releases and auto-repeat (a foot left on the pedal) do not. Pure.
public enum ExitKey: Sendable, Equatable, CustomStringConvertible {
    /// Any key or button of the device: for a device used only for exits.
    case any
    /// One key, by its Linux code (`KEY_F13` = 183, `BTN_0` = 256; see linux/input-event-codes.h).
    case code(UInt16)

    /// From the configuration: `any`, a number, or a name such as `KEY_F13`, `KEY_B`, `KEY_ENTER`, `BTN_0`.
    public init?(_ text: String) {
        if text == "any" {
            self = .any
        } else if let number = UInt16(text), number > 0, number < 0x300 {
            self = .code(number)
        } else if let code = Self.names[text.uppercased()] {
            self = .code(code)
        } else {
            return nil
        }
    }

    public func isExit(_ event: EvdevInput.Event) -> Bool {
        guard event.type == EvdevInput.Event.keyType, event.value == 1 else { return false }
        switch self {
        case .any: return true
        case .code(let code): return event.code == code
        }
    }

    public var description: String {
        switch self {
        case .any: return "any"
        case .code(let code): return Self.names.first { $0.value == code }?.key ?? "\(code)"
        }
    }

    /// The key names foot switches and button boxes are usually set to send.
    static let names: [String: UInt16] = {
        var names: [String: UInt16] = [
            "KEY_ENTER": 28, "KEY_SPACE": 57, "KEY_TAB": 15, "KEY_ESC": 1, "KEY_PAGEUP": 104, "KEY_PAGEDOWN": 109,
            "KEY_UP": 103, "KEY_DOWN": 108, "KEY_LEFT": 105, "KEY_RIGHT": 106, "KEY_VOLUMEUP": 115,
            "KEY_VOLUMEDOWN": 114, "KEY_PLAYPAUSE": 164, "BTN_LEFT": 0x110, "BTN_RIGHT": 0x111,
            "BTN_MIDDLE": 0x112,
        ]
        for (i, code) in [59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 87, 88].enumerated() {
            names["KEY_F\(i + 1)"] = UInt16(code)
        }
        for i in 13...24 { names["KEY_F\(i)"] = UInt16(183 + i - 13) }
        for i in 0...9 { names["BTN_\(i)"] = UInt16(0x100 + i) }
        let letterRows: [(UInt16, String)] = [(16, "QWERTYUIOP"), (30, "ASDFGHJKL"), (44, "ZXCVBNM")]
        for (first, letters) in letterRows {
            for (i, letter) in letters.enumerated() { names["KEY_\(letter)"] = first + UInt16(i) }
        }
        for (i, digit) in "1234567890".enumerated() { names["KEY_\(digit)"] = UInt16(2 + i) }
        return names
    }()
}
