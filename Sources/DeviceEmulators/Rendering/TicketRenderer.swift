import Drivers
import KioskCore
import QRSymbol

/// Draws what ESC/POS commands print onto a growing 1-bit page as wide as the printer's line.
///
/// Text uses a console font (font A 12×24, font B 8×16) with bold, underline, `GS !` magnification and
/// justification; `GS ( k` QR codes are drawn from their stored data via libqrencode; `GS v 0` and `ESC *`
/// images are copied. A cut ends the page.
struct TicketRenderer {
    struct Fonts: Sendable {
        var regular: PSFFont
        var bold: PSFFont
        var small: PSFFont
        var smallBold: PSFFont

        static func load(directory: String = PSFFont.directory) throws(PSFFont.LoadError) -> Fonts {
            Fonts(
                regular: try PSFFont.load(path: "\(directory)/Uni2-Terminus24x12.psf.gz"),
                bold: try PSFFont.load(path: "\(directory)/Uni2-TerminusBold24x12.psf.gz"),
                small: try PSFFont.load(path: "\(directory)/Uni2-Terminus16.psf.gz"),
                smallBold: try PSFFont.load(path: "\(directory)/Uni2-TerminusBold16.psf.gz")
            )
        }
    }

    private struct Glyph {
        var scalar: Unicode.Scalar
        var bold: Bool
        var underline: UInt8
        var width: Int
        var height: Int
        var small: Bool
    }

    let profile: PrinterProfile
    let fonts: Fonts
    private(set) var page: Bitmap
    private(set) var y = 0
    private(set) var lines: [String] = []
    private var line: [Glyph] = []

    // Print modes, reset by ESC @.
    private var bold = false
    private var underline: UInt8 = 0
    private var widthScale = 1
    private var heightScale = 1
    private var smallFont = false
    private var alignment = 0
    private var lineSpacing = 30
    private var leftMargin = 0
    private var codePage: CodePage
    // QR settings (GS ( k), also reset by ESC @.
    private var qrModuleSize = 3
    private var qrErrorCorrection: QRSpec.ErrorCorrection = .low
    private var qrData: [UInt8] = []
    /// The data of every QR printed on this page (what a scanner would read off the paper).
    private var qrPrinted: [String] = []

    init(profile: PrinterProfile, fonts: Fonts) {
        self.profile = profile
        self.fonts = fonts
        self.page = Bitmap(width: profile.dotsPerLine, height: 0)
        self.codePage = profile.codePages.first { $0.escT == 0 }?.page ?? .cp437
    }

    var isBlank: Bool { y == 0 && line.isEmpty }

    mutating func initialize() {
        bold = false
        underline = 0
        widthScale = 1
        heightScale = 1
        smallFont = false
        alignment = 0
        lineSpacing = 30
        leftMargin = 0
        codePage = profile.codePages.first { $0.escT == 0 }?.page ?? .cp437
        qrModuleSize = 3
        qrErrorCorrection = .low
        qrData = []
        line = []
    }

    mutating func apply(_ command: EscPosParser.Command) {
        switch command {
        case .text(let bytes):
            for b in bytes { addCharacter(codePage.scalar(for: b) ?? "?") }
        case .tab:
            let cellWidth = 12 * widthScale
            let column = lineWidth / max(cellWidth, 1)
            for _ in 0..<(8 - column % 8) { addCharacter(" ") }
        case .lineFeed: printLine()
        case .carriageReturn: break
        case .initialize: initialize()
        case .printMode(let n):
            smallFont = n & 0x01 != 0
            bold = n & 0x08 != 0
            heightScale = n & 0x10 != 0 ? 2 : 1
            widthScale = n & 0x20 != 0 ? 2 : 1
            underline = n & 0x80 != 0 ? 1 : 0
        case .bold(let on): bold = on
        case .underline(let n): underline = n
        case .align(let n): alignment = Int(min(n, 2))
        case .codePage(let n): codePage = profile.codePages.first { $0.escT == n }?.page ?? codePage
        case .font(let n): smallFont = n == 1
        case .characterSize(let n):
            widthScale = Int(n >> 4 & 0x07) + 1
            heightScale = Int(n & 0x07) + 1
        case .lineSpacing(let n): lineSpacing = n.map(Int.init) ?? 30
        case .feedLines(let n):
            if n == 0 {
                flushLineWithoutFeed()
            } else {
                printLine()
                advance(lineSpacing * (n - 1))
            }
        case .feedDots(let n):
            flushLineWithoutFeed()
            advance(n)
        case .leftMargin(let n): leftMargin = min(n, profile.dotsPerLine - 1)
        case .qr(let fn, let parameters): applyQR(fn: fn, parameters)
        case .rasterImage(let mode, let widthBytes, let height, let data):
            guard let bitmap = Bitmap(width: widthBytes * 8, height: height, packedRows: data) else { return }
            flushLineWithoutFeed()
            drawBlock(bitmap, scaleX: mode & 1 == 1 ? 2 : 1, scaleY: mode & 2 == 2 ? 2 : 1)
        case .columnImage(let mode, let width, let data):
            flushLineWithoutFeed()
            drawBlock(Self.columnBitmap(mode: mode, width: width, data: data), scaleX: mode & 1 == 0 ? 2 : 1, scaleY: 1)
        case .cut, .realTimeStatus, .realTimeRequest, .automaticStatusBack, .transmitStatus, .presenter, .ignored,
            .unknown:
            break
        }
    }

    /// Ends the page: prints what is pending and returns the page, its text and its native QR codes' data,
    /// then starts a new one.
    mutating func finishPage() -> (image: Bitmap, text: [String], qrCodes: [String]) {
        flushLineWithoutFeed()
        let result = (page.resized(height: max(y, 1)), lines, qrPrinted)
        page = Bitmap(width: profile.dotsPerLine, height: 0)
        y = 0
        lines = []
        qrPrinted = []
        return result
    }

    // MARK: - Text

    private var lineWidth: Int { line.reduce(0) { $0 + $1.width * ($1.small ? 8 : 12) } }

    private mutating func addCharacter(_ scalar: Unicode.Scalar) {
        let glyph = Glyph(
            scalar: scalar,
            bold: bold,
            underline: underline,
            width: widthScale,
            height: heightScale,
            small: smallFont
        )
        if leftMargin + lineWidth + glyph.width * (glyph.small ? 8 : 12) > profile.dotsPerLine {
            printLine()
        }
        line.append(glyph)
    }

    private mutating func flushLineWithoutFeed() {
        if !line.isEmpty { printLine() }
    }

    private mutating func printLine() {
        let textHeight = line.map { $0.height * ($0.small ? 16 : 24) }.max() ?? 0
        let height = max(textHeight, lineSpacing)
        ensureRows(y + height)
        let width = lineWidth
        var x = leftMargin + offset(forWidth: width, available: profile.dotsPerLine - leftMargin)
        let baseline = y + textHeight
        for glyph in line {
            let font =
                glyph.small ? (glyph.bold ? fonts.smallBold : fonts.small) : (glyph.bold ? fonts.bold : fonts.regular)
            let cell = (glyph.small ? 8 : 12) * glyph.width
            let bitmap = font.glyph(for: glyph.scalar) ?? font.glyph(for: "?")
            if let bitmap {
                page.draw(
                    bitmap,
                    x: x,
                    y: baseline - bitmap.height * glyph.height,
                    scaleX: glyph.width,
                    scaleY: glyph.height
                )
            }
            if glyph.underline > 0 {
                page.fill(x: x, y: baseline - Int(glyph.underline), width: cell, height: Int(glyph.underline))
            }
            x += cell
        }
        lines.append(String(String.UnicodeScalarView(line.map(\.scalar))))
        line = []
        y += height
    }

    private func offset(forWidth width: Int, available: Int) -> Int {
        switch alignment {
        case 1: return max((available - width) / 2, 0)
        case 2: return max(available - width, 0)
        default: return 0
        }
    }

    private mutating func advance(_ dots: Int) {
        y += max(dots, 0)
        ensureRows(y)
    }

    private mutating func ensureRows(_ rows: Int) {
        if rows > page.height { page = page.resized(height: rows + 256) }
    }

    private mutating func drawBlock(_ bitmap: Bitmap, scaleX: Int, scaleY: Int) {
        let width = bitmap.width * scaleX
        ensureRows(y + bitmap.height * scaleY)
        page.draw(
            bitmap,
            x: leftMargin + offset(forWidth: width, available: profile.dotsPerLine - leftMargin),
            y: y,
            scaleX: scaleX,
            scaleY: scaleY
        )
        y += bitmap.height * scaleY
    }

    // MARK: - QR (GS ( k, cn = 49)

    private mutating func applyQR(fn: UInt8, _ p: [UInt8]) {
        switch fn {
        case 67 where p.count >= 1: qrModuleSize = Int(min(max(p[0], 1), 16))
        case 69 where p.count >= 1:
            switch p[0] {
            case 49: qrErrorCorrection = .medium
            case 50: qrErrorCorrection = .quartile
            case 51: qrErrorCorrection = .high
            default: qrErrorCorrection = .low
            }
        case 80 where p.count >= 1: qrData = Array(p.dropFirst())  // m = 48, then the data
        case 81:
            flushLineWithoutFeed()
            guard
                let matrix = try? QRMatrix.encode(
                    qrData,
                    errorCorrection: qrErrorCorrection,
                    maxVersion: profile.qrMaxVersion
                )
            else { return }  // A real printer prints nothing for data it cannot encode.
            drawBlock(matrix.bitmap(moduleSize: qrModuleSize, quietZone: 4), scaleX: 1, scaleY: 1)
            qrPrinted.append(String(decoding: qrData, as: UTF8.self))
        default: break
        }
    }

    /// `ESC *` data is column-major: 1 byte (8 dots) or 3 bytes (24 dots) per column.
    private static func columnBitmap(mode: UInt8, width: Int, data: [UInt8]) -> Bitmap {
        let bytesPerColumn = mode >= 32 ? 3 : 1
        var bitmap = Bitmap(width: width, height: bytesPerColumn * 8)
        for x in 0..<width {
            for k in 0..<bytesPerColumn {
                let b = data[x * bytesPerColumn + k]
                for bit in 0..<8 where b & (0x80 >> UInt8(bit)) != 0 {
                    bitmap[x, k * 8 + bit] = true
                }
            }
        }
        return bitmap
    }
}
