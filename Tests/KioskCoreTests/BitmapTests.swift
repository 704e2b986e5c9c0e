import Testing

@testable import KioskCore

@Suite struct BitmapTests {
    @Test func pixelsArePackedMostSignificantBitFirst() {
        var bitmap = Bitmap(width: 10, height: 2)
        #expect(bitmap.rowBytes == 2)
        bitmap[0, 0] = true
        bitmap[9, 1] = true
        #expect(bitmap.bits == [0x80, 0x00, 0x00, 0x40])
        #expect(bitmap[0, 0] && bitmap[9, 1] && !bitmap[1, 0])
        bitmap[0, 0] = false
        #expect(bitmap.bits[0] == 0)
    }

    @Test func outOfRangeAccessIsIgnoredNotATrap() {
        var bitmap = Bitmap(width: 4, height: 4)
        bitmap[-1, 0] = true
        bitmap[4, 0] = true
        bitmap[0, 99] = true
        #expect(bitmap.blackPixelCount == 0)
        #expect(bitmap[100, 100] == false)
    }

    @Test func fillOutsideTheBitmapDoesNothing() {
        var bitmap = Bitmap(width: 8, height: 8)
        bitmap.fill(x: 20, y: 0, width: 4, height: 4)
        bitmap.fill(x: 0, y: -10, width: 4, height: 4)
        bitmap.fill(x: -3, y: -3, width: 2, height: 2)
        bitmap.fill(x: 2, y: 2, width: -5, height: 3)
        #expect(bitmap.blackPixelCount == 0)
        bitmap.fill(x: -2, y: 6, width: 4, height: 10)
        #expect(bitmap.blackPixelCount == 4)
    }

    @Test func packedRowsMustMatchTheSize() {
        #expect(Bitmap(width: 9, height: 2, packedRows: [1, 2, 3, 4]) != nil)
        #expect(Bitmap(width: 9, height: 2, packedRows: [1, 2, 3]) == nil)
    }

    @Test func drawScalesAndClips() {
        var dot = Bitmap(width: 1, height: 1)
        dot[0, 0] = true
        var canvas = Bitmap(width: 8, height: 8)
        canvas.draw(dot, x: 6, y: 6, scaleX: 3, scaleY: 3)
        #expect(canvas.blackPixelCount == 4)  // 3×3 clipped to 2×2
        let taller = canvas.resized(height: 10)
        #expect(taller.height == 10 && taller.blackPixelCount == 4)
        #expect(canvas.resized(height: 7).blackPixelCount == 2)
    }

    @Test func textStyleClampsMagnification() {
        let style = TextStyle(widthScale: 0, heightScale: 12)
        #expect(style.widthScale == 1 && style.heightScale == 8)
    }
}

/// `fill` and `draw` work a byte at a time; they must paint exactly the pixels a pixel-at-a-time painter does,
/// wherever the rectangle or image falls (bit offsets, clipping, raster padding bits that are not pixels).
@Suite struct BitmapPaintingTests {
    /// A small deterministic generator (xorshift), so a failure can be repeated.
    struct Random {
        var state: UInt64
        mutating func next(_ range: ClosedRange<Int>) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return range.lowerBound + Int(state % UInt64(range.count))
        }
    }

    static func randomBitmap(_ random: inout Random, maxWidth: Int, maxHeight: Int) -> Bitmap {
        let width = random.next(0...maxWidth)
        let height = random.next(0...maxHeight)
        let bytes = (0..<((width + 7) / 8 * height)).map { _ in UInt8(random.next(0...255)) }
        return Bitmap(width: width, height: height, packedRows: bytes)!
    }

    /// What `fill` must do, one pixel at a time through the (clipping) subscript.
    static func referenceFill(_ bitmap: inout Bitmap, x: Int, y: Int, width: Int, height: Int, black: Bool) {
        for yy in y..<(y + max(height, 0)) {
            for xx in x..<(x + max(width, 0)) { bitmap[xx, yy] = black }
        }
    }

    @Test func fillPaintsWhatAPixelPainterPaints() {
        var random = Random(state: 0x5EED_F111)
        for _ in 0..<2000 {
            var fast = Self.randomBitmap(&random, maxWidth: 70, maxHeight: 6)
            var slow = fast
            let (x, y) = (random.next(-10...80), random.next(-3...8))
            let (w, h) = (random.next(-2...40), random.next(-1...5))
            let black = random.next(0...1) == 1
            fast.fill(x: x, y: y, width: w, height: h, black: black)
            Self.referenceFill(&slow, x: x, y: y, width: w, height: h, black: black)
            #expect(fast == slow, "fill x \(x) y \(y) w \(w) h \(h) black \(black) on \(fast.width)×\(fast.height)")
            if fast != slow { return }
        }
    }

    @Test func drawPaintsWhatAPixelPainterPaints() {
        var random = Random(state: 0xD2A7_0001)
        for _ in 0..<2000 {
            var fast = Self.randomBitmap(&random, maxWidth: 70, maxHeight: 8)
            var slow = fast
            let image = Self.randomBitmap(&random, maxWidth: 40, maxHeight: 6)
            let scale = random.next(0...3) == 0 ? random.next(2...3) : 1
            let (x, y) = (random.next(-12...75), random.next(-4...9))
            fast.draw(image, x: x, y: y, scaleX: scale, scaleY: scale)
            for sy in 0..<image.height {
                for sx in 0..<image.width where image[sx, sy] {
                    Self.referenceFill(
                        &slow,
                        x: x + sx * scale,
                        y: y + sy * scale,
                        width: scale,
                        height: scale,
                        black: true
                    )
                }
            }
            #expect(
                fast == slow,
                "draw \(image.width)×\(image.height) ×\(scale) at \(x),\(y) on \(fast.width)×\(fast.height)"
            )
            if fast != slow { return }
        }
    }
}
