import CZlib
import KioskCore

/// Writes a ``Bitmap`` as a 1-bit grayscale PNG (black = 1 in the bitmap, 0 in the PNG).
public enum PNGWriter {
    public static func encode(_ bitmap: Bitmap) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity((bitmap.rowBytes + 1) * bitmap.height)
        for y in 0..<bitmap.height {
            raw.append(0)  // filter type: none
            let row = bitmap.bits[(y * bitmap.rowBytes)..<((y + 1) * bitmap.rowBytes)]
            raw.append(contentsOf: row.map { ~$0 })
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        header += be32(UInt32(bitmap.width))
        header += be32(UInt32(bitmap.height))
        header += [1, 0, 0, 0, 0]  // bit depth 1, grayscale, deflate, adaptive filter, no interlace
        png += chunk("IHDR", header)
        png += chunk("IDAT", deflate(raw))
        png += chunk("IEND", [])
        return png
    }

    private static func deflate(_ data: [UInt8]) -> [UInt8] {
        var size = compressBound(uLong(data.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let rc = compress2(&out, &size, data, uLong(data.count), 6)
        precondition(rc == Z_OK, "zlib compress2 failed with \(rc) on an in-memory buffer")
        return Array(out[0..<Int(size)])
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        let crc = (typeBytes + data).withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
        return be32(UInt32(data.count)) + typeBytes + data + be32(UInt32(crc))
    }

    private static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
}
