import Foundation
import KioskCore

/// Reads a 1-bit PBM picture (P4 binary or P1 text), the format of a logo on a thermal ticket.
enum PBMImage {
    struct FormatError: Error, CustomStringConvertible {
        let description: String
    }

    static func load(path: String) throws -> Bitmap {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FormatError(description: "\(path): cannot read the logo — check [printer] logo")
        }
        return try parse(Array(data), name: path)
    }

    static func parse(_ d: [UInt8], name: String) throws -> Bitmap {
        var i = 0
        func token() -> String? {
            while i < d.count {
                if d[i] == UInt8(ascii: "#") {
                    while i < d.count && d[i] != 0x0A { i += 1 }
                } else if d[i] == 0x20 || d[i] == 0x0A || d[i] == 0x0D || d[i] == 0x09 {
                    i += 1
                } else {
                    break
                }
            }
            let start = i
            while i < d.count && !(d[i] == 0x20 || d[i] == 0x0A || d[i] == 0x0D || d[i] == 0x09) { i += 1 }
            return start < i ? String(decoding: d[start..<i], as: UTF8.self) : nil
        }
        let magic = token()
        guard magic == "P4" || magic == "P1", let w = token().flatMap(Int.init), let h = token().flatMap(Int.init),
            w > 0, h > 0, w <= 4096, h <= 8192
        else { throw FormatError(description: "\(name): not a 1-bit PBM image (P1 or P4) of a sane size") }
        if magic == "P4" {
            i += 1  // the single whitespace after the height
            let rowBytes = (w + 7) / 8
            guard i + rowBytes * h <= d.count,
                let bitmap = Bitmap(width: w, height: h, packedRows: Array(d[i..<(i + rowBytes * h)]))
            else { throw FormatError(description: "\(name): PBM data is shorter than \(w)×\(h)") }
            return bitmap
        }
        var bitmap = Bitmap(width: w, height: h)
        var n = 0
        while n < w * h, i < d.count {
            let c = d[i]
            i += 1
            if c == UInt8(ascii: "1") || c == UInt8(ascii: "0") {
                bitmap[n % w, n / w] = c == UInt8(ascii: "1")
                n += 1
            }
        }
        guard n == w * h else { throw FormatError(description: "\(name): PBM data is shorter than \(w)×\(h)") }
        return bitmap
    }
}
