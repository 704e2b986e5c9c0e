import CZlib
import KioskCore

/// A Linux console font (PSF1 or PSF2, optionally gzipped), with its Unicode table: the emulator's
/// "printer ROM" font. Debian's console-setup-linux ships Terminus in the printer's sizes
/// (12×24 for ESC/POS font A, 8×16 for font B).
public struct PSFFont: Sendable {
    public let width: Int
    public let height: Int
    private let glyphs: [Bitmap]
    private let index: [UInt32: Int]

    public enum LoadError: Error, CustomStringConvertible {
        case unreadable(String)
        case notPSF(String)

        public var description: String {
            switch self {
            case .unreadable(let path):
                return
                    "\(path): cannot read the font — install Debian's console-setup-linux (apt-get install console-setup-linux)"
            case .notPSF(let path): return "\(path): not a PSF console font"
            }
        }
    }

    public static let directory = "/usr/share/consolefonts"

    /// Loads `path`, which may be gzip-compressed (as Debian ships them).
    public static func load(path: String) throws(LoadError) -> PSFFont {
        guard let file = gzopen(path, "rb") else { throw .unreadable(path) }
        defer { gzclose(file) }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = gzread(file, &buffer, UInt32(buffer.count))
            if n < 0 { throw .unreadable(path) }
            if n == 0 { break }
            data += buffer[0..<Int(n)]
        }
        guard let font = parse(data) else { throw .notPSF(path) }
        return font
    }

    public func glyph(for scalar: Unicode.Scalar) -> Bitmap? {
        index[scalar.value].map { glyphs[$0] }
    }

    static func parse(_ d: [UInt8]) -> PSFFont? {
        func le32(_ o: Int) -> Int { Int(d[o]) | Int(d[o + 1]) << 8 | Int(d[o + 2]) << 16 | Int(d[o + 3]) << 24 }
        if d.count >= 32, d[0] == 0x72, d[1] == 0xB5, d[2] == 0x4A, d[3] == 0x86 {
            let headerSize = le32(8)
            let flags = le32(12)
            let count = le32(16)
            let bytesPerGlyph = le32(20)
            let height = le32(24)
            let width = le32(28)
            let glyphEnd = headerSize + count * bytesPerGlyph
            guard width > 0, height > 0, count > 0, glyphEnd <= d.count else { return nil }
            let glyphs = (0..<count).map { g in
                Bitmap(
                    width: width,
                    height: height,
                    packedRows: Array(d[(headerSize + g * bytesPerGlyph)..<(headerSize + (g + 1) * bytesPerGlyph)])
                )!
            }
            var index: [UInt32: Int] = [:]
            if flags & 1 != 0 { index = unicodeTable2(d, from: glyphEnd, count: count) }
            return PSFFont(width: width, height: height, glyphs: glyphs, index: index)
        }
        if d.count >= 4, d[0] == 0x36, d[1] == 0x04 {
            let mode = d[2]
            let height = Int(d[3])
            let count = mode & 1 != 0 ? 512 : 256
            guard 4 + count * height <= d.count else { return nil }
            let glyphs = (0..<count).map { g in
                Bitmap(width: 8, height: height, packedRows: Array(d[(4 + g * height)..<(4 + (g + 1) * height)]))!
            }
            var index: [UInt32: Int] = [:]
            if mode & 2 != 0 {
                var o = 4 + count * height
                var g = 0
                while o + 1 < d.count && g < count {
                    let v = UInt32(d[o]) | UInt32(d[o + 1]) << 8
                    o += 2
                    if v == 0xFFFF { g += 1 } else if v != 0xFFFE, index[v] == nil { index[v] = g }
                }
            }
            return PSFFont(width: 8, height: height, glyphs: glyphs, index: index)
        }
        return nil
    }

    /// PSF2 Unicode table: per glyph, UTF-8 sequences terminated by 0xFF; 0xFE starts multi-scalar sequences.
    private static func unicodeTable2(_ d: [UInt8], from start: Int, count: Int) -> [UInt32: Int] {
        var index: [UInt32: Int] = [:]
        var o = start
        var g = 0
        var inSequence = false
        while o < d.count && g < count {
            let b = d[o]
            if b == 0xFF {
                g += 1
                inSequence = false
                o += 1
                continue
            }
            if b == 0xFE {
                inSequence = true
                o += 1
                continue
            }
            let length = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4
            guard o + length <= d.count else { break }
            var decoder = UTF8()
            var iterator = d[o..<(o + length)].makeIterator()
            if !inSequence, case .scalarValue(let s) = decoder.decode(&iterator), index[s.value] == nil {
                index[s.value] = g
            }
            o += length
        }
        return index
    }
}
