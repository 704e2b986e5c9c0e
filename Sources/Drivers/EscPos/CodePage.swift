/// A single-byte character table of a printer (selected with `ESC t n`).
///
/// Bytes 0x20...0x7E are ASCII on every page; the upper half comes from the page's table. Characters a page
/// lacks are not encodable there; the encoder tries the profile's other pages, then prints `?`.
public struct CodePage: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    private let high: [UInt32]

    private init(name: String, high: [UInt32]) {
        precondition(high.count == 128, "a code page table has 128 entries")
        self.name = name
        self.high = high
    }

    public var description: String { name }

    public static let cp437 = CodePage(name: "cp437", high: cp437High)
    public static let cp850 = CodePage(name: "cp850", high: cp850High)
    public static let cp852 = CodePage(name: "cp852", high: cp852High)
    public static let cp858 = CodePage(name: "cp858", high: cp858High)
    public static let cp866 = CodePage(name: "cp866", high: cp866High)
    public static let cp1252 = CodePage(name: "cp1252", high: cp1252High)

    public static let all: [CodePage] = [.cp437, .cp850, .cp852, .cp858, .cp866, .cp1252]

    public static func named(_ name: String) -> CodePage? {
        all.first { $0.name == name.lowercased() }
    }

    /// The byte for a character, or nil if this page has no such character. Control characters are never
    /// encodable: they would be commands to the printer.
    public func byte(for scalar: Unicode.Scalar) -> UInt8? {
        if scalar.value >= 0x20 && scalar.value < 0x7F { return UInt8(scalar.value) }
        return reverse[scalar.value]
    }

    /// The character a byte stands for on this page (what the emulator draws).
    public func scalar(for byte: UInt8) -> Unicode.Scalar? {
        if byte >= 0x20 && byte < 0x7F { return Unicode.Scalar(byte) }
        guard byte >= 0x80, high[Int(byte) - 0x80] != 0 else { return nil }
        return Unicode.Scalar(high[Int(byte) - 0x80])
    }

    private var reverse: [UInt32: UInt8] {
        CodePage.reverseTables[name] ?? [:]
    }

    private static let reverseTables: [String: [UInt32: UInt8]] = {
        var tables: [String: [UInt32: UInt8]] = [:]
        for page in all {
            var map: [UInt32: UInt8] = [:]
            for (i, value) in page.high.enumerated() where value != 0 && map[value] == nil {
                map[value] = UInt8(0x80 + i)
            }
            tables[page.name] = map
        }
        return tables
    }()
}
