/// A 1-bit image, rows packed most significant bit first (1 = black), as ESC/POS raster and PNG use it.
public struct Bitmap: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// Bytes per row: `(width + 7) / 8`.
    public let rowBytes: Int
    public private(set) var bits: [UInt8]

    public init(width: Int, height: Int) {
        precondition(width >= 0 && height >= 0, "bitmap size must not be negative")
        self.width = width
        self.height = height
        self.rowBytes = (width + 7) / 8
        self.bits = [UInt8](repeating: 0, count: rowBytes * height)
    }

    /// Wraps packed rows; `bits.count` must be `((width + 7) / 8) * height`.
    public init?(width: Int, height: Int, packedRows: [UInt8]) {
        guard width >= 0, height >= 0, packedRows.count == ((width + 7) / 8) * height else { return nil }
        self.width = width
        self.height = height
        self.rowBytes = (width + 7) / 8
        self.bits = packedRows
    }

    public subscript(x: Int, y: Int) -> Bool {
        get {
            guard x >= 0, y >= 0, x < width, y < height else { return false }
            return bits[y * rowBytes + x >> 3] & (0x80 >> UInt8(x & 7)) != 0
        }
        set {
            guard x >= 0, y >= 0, x < width, y < height else { return }
            let mask: UInt8 = 0x80 >> UInt8(x & 7)
            if newValue {
                bits[y * rowBytes + x >> 3] |= mask
            } else {
                bits[y * rowBytes + x >> 3] &= ~mask
            }
        }
    }

    /// Fills a rectangle (clipped to the bitmap).
    public mutating func fill(x: Int, y: Int, width w: Int, height h: Int, black: Bool = true) {
        let x0 = max(x, 0)
        let x1 = min(x + w, width)
        let y0 = max(y, 0)
        let y1 = min(y + h, height)
        guard x0 < x1, y0 < y1 else { return }
        for yy in y0..<y1 {
            for xx in x0..<x1 {
                self[xx, yy] = black
            }
        }
    }

    /// Copies `other` with its top-left corner at (x, y); black pixels only (an OR), clipped.
    public mutating func draw(_ other: Bitmap, x: Int, y: Int, scaleX: Int = 1, scaleY: Int = 1) {
        for sy in 0..<other.height {
            for sx in 0..<other.width where other[sx, sy] {
                fill(x: x + sx * scaleX, y: y + sy * scaleY, width: scaleX, height: scaleY)
            }
        }
    }

    /// A copy with `rows` more blank rows at the bottom (or fewer, if negative).
    public func resized(height newHeight: Int) -> Bitmap {
        var copy = Bitmap(width: width, height: max(newHeight, 0))
        let n = min(copy.bits.count, bits.count)
        copy.bits.replaceSubrange(0..<n, with: bits[0..<n])
        return copy
    }

    /// Number of black pixels, for tests and blank-page checks.
    public var blackPixelCount: Int {
        bits.reduce(0) { $0 + $1.nonzeroBitCount }
    }
}
