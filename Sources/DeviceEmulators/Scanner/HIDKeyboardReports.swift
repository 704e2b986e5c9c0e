/// What a USB-HID keyboard-wedge scanner sends for a scan: 8-byte boot keyboard reports (modifiers, reserved,
/// six key usages), one press and one release per character, then Enter — as a real scanner in HID mode
/// does on a US layout. Usages are from the HID Usage Tables, Keyboard/Keypad page (0x07).
public enum HIDKeyboardReports {
    public enum Failure: Error, CustomStringConvertible {
        case untypable(Character)

        public var description: String {
            switch self {
            case .untypable(let c): return "'\(c)' cannot be typed on a US keyboard"
            }
        }
    }

    static let leftShift: UInt8 = 0x02
    static let enter: UInt8 = 0x28

    /// The reports for `text` and Enter. With `keypad`, digits and `* + - . /` come from the numeric keypad
    /// (some scanners do that), else from the main keys.
    public static func reports(typing text: String, keypad: Bool = false) throws(Failure) -> [[UInt8]] {
        var reports: [[UInt8]] = []
        for character in text {
            let (modifiers, usage) = try key(for: character, keypad: keypad)
            reports.append([modifiers, 0, usage, 0, 0, 0, 0, 0])
            reports.append([0, 0, 0, 0, 0, 0, 0, 0])
        }
        reports.append([0, 0, enter, 0, 0, 0, 0, 0])
        reports.append([0, 0, 0, 0, 0, 0, 0, 0])
        return reports
    }

    /// Modifier byte and usage for one character.
    static func key(for character: Character, keypad: Bool) throws(Failure) -> (UInt8, UInt8) {
        if keypad, let usage = keypadUsages[character] { return (0, usage) }
        if let ascii = character.asciiValue {
            switch ascii {
            case UInt8(ascii: "a")...UInt8(ascii: "z"): return (0, 0x04 + ascii - UInt8(ascii: "a"))
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): return (leftShift, 0x04 + ascii - UInt8(ascii: "A"))
            case UInt8(ascii: "1")...UInt8(ascii: "9"): return (0, 0x1E + ascii - UInt8(ascii: "1"))
            case UInt8(ascii: "0"): return (0, 0x27)
            default: break
            }
        }
        if let usage = plainUsages[character] { return (0, usage) }
        if let usage = shiftedUsages[character] { return (leftShift, usage) }
        throw .untypable(character)
    }

    static let plainUsages: [Character: UInt8] = [
        " ": 0x2C, "-": 0x2D, "=": 0x2E, "[": 0x2F, "]": 0x30, "\\": 0x31, ";": 0x33, "'": 0x34, "`": 0x35,
        ",": 0x36, ".": 0x37, "/": 0x38,
    ]
    static let shiftedUsages: [Character: UInt8] = [
        "!": 0x1E, "@": 0x1F, "#": 0x20, "$": 0x21, "%": 0x22, "^": 0x23, "&": 0x24, "*": 0x25, "(": 0x26,
        ")": 0x27, "_": 0x2D, "+": 0x2E, "{": 0x2F, "}": 0x30, "|": 0x31, ":": 0x33, "\"": 0x34, "~": 0x35,
        "<": 0x36, ">": 0x37, "?": 0x38,
    ]
    static let keypadUsages: [Character: UInt8] = [
        "/": 0x54, "*": 0x55, "-": 0x56, "+": 0x57, "1": 0x59, "2": 0x5A, "3": 0x5B, "4": 0x5C, "5": 0x5D,
        "6": 0x5E, "7": 0x5F, "8": 0x60, "9": 0x61, "0": 0x62, ".": 0x63,
    ]
}
