/// A GPIO line as `[door]` names it: `17` (an offset on the configured chip), `DOOR_GREEN` (a line name, as
/// `gpioinfo` lists it), or either after a chip: `gpiochip1:3`, `gpiochip1:DOOR_GREEN`. A chip is a name
/// (`gpiochip0`), a path (`/dev/gpiochip0`), a number or a label (`cp2112`), as libgpiod looks them up.
public struct GPIOLineAddress: Sendable, Hashable, CustomStringConvertible {
    public enum Line: Sendable, Hashable {
        case offset(UInt32)
        case name(String)
    }

    public var chip: String
    public var line: Line

    public init(chip: String, line: Line) {
        self.chip = chip
        self.line = line
    }

    /// Parses `text`, on `chip` unless the text names its own.
    public init(parsing text: String, chip defaultChip: String) throws(GPIOError) {
        var chip = defaultChip
        var lineText = Substring(text)
        if let colon = text.lastIndex(of: ":") {
            chip = String(text[..<colon])
            lineText = text[text.index(after: colon)...]
        }
        guard !chip.isEmpty, !lineText.isEmpty, !lineText.contains(where: \.isWhitespace) else {
            throw GPIOError(
                .invalidAddress,
                device: text,
                "write a line as 17, as its name (`gpioinfo` lists them) or as gpiochip0:17"
            )
        }
        self.chip = chip
        line = UInt32(lineText).map(Line.offset) ?? .name(String(lineText))
    }

    public var description: String {
        switch line {
        case .offset(let offset): return "\(chip):\(offset)"
        case .name(let name): return "\(chip):\(name)"
        }
    }
}
