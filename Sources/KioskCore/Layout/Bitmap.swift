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

    /// Fills a rectangle (clipped to the bitmap), a byte at a time.
    public mutating func fill(x: Int, y: Int, width w: Int, height h: Int, black: Bool = true) {
        let x0 = max(x, 0)
        let x1 = min(x + w, width)
        let y0 = max(y, 0)
        let y1 = min(y + h, height)
        guard x0 < x1, y0 < y1 else { return }
        let rowBytes = rowBytes
        bits.withUnsafeMutableBufferPointer { bits in
            for row in y0..<y1 {
                var xx = x0
                while xx < x1 {
                    let bit = xx & 7
                    let n = min(8 - bit, x1 - xx)
                    let mask = UInt8(truncatingIfNeeded: (0xFF >> bit) & ~(0xFF >> (bit + n)))
                    let index = row * rowBytes + xx >> 3
                    if black { bits[index] |= mask } else { bits[index] &= ~mask }
                    xx += n
                }
            }
        }
    }

    /// Copies `other` with its top-left corner at (x, y); black pixels only (an OR), clipped.
    public mutating func draw(_ other: Bitmap, x: Int, y: Int, scaleX: Int = 1, scaleY: Int = 1) {
        if scaleX == 1 && scaleY == 1 && x >= 0 && x + other.width <= width {
            orRows(of: other, x: x, y: y)
            return
        }
        for sy in 0..<other.height {
            for sx in 0..<other.width where other[sx, sy] {
                fill(x: x + sx * scaleX, y: y + sy * scaleY, width: scaleX, height: scaleY)
            }
        }
    }

    /// `draw` at scale 1 of a bitmap that fits across: each row's bytes ORed in, shifted to x's bit (QR codes
    /// and images are drawn this way; a pixel at a time was most of the emulator's work).
    private mutating func orRows(of other: Bitmap, x: Int, y: Int) {
        guard other.rowBytes > 0 else { return }
        let shift = x & 7
        let rowBytes = rowBytes
        let height = height
        let last = other.rowBytes - 1
        // Bits past the source's width (padding of raster data) are not pixels.
        let lastMask: UInt8 = other.width & 7 == 0 ? 0xFF : ~(0xFF >> UInt8(other.width & 7))
        bits.withUnsafeMutableBufferPointer { bits in
            other.bits.withUnsafeBufferPointer { source in
                for sy in 0..<other.height where y + sy >= 0 && y + sy < height {
                    let from = sy * other.rowBytes
                    let to = (y + sy) * rowBytes + x >> 3
                    for i in 0...last {
                        let value = i == last ? source[from + i] & lastMask : source[from + i]
                        guard value != 0 else { continue }
                        bits[to + i] |= value >> UInt8(shift)
                        // Only real pixels spill into the next byte, and those are inside the row.
                        if shift > 0 {
                            let spill = value << UInt8(8 - shift)
                            if spill != 0 { bits[to + i + 1] |= spill }
                        }
                    }
                }
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
