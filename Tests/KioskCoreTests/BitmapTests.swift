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
