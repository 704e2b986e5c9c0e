/// A ticket (or any receipt) as an abstract document: what to print, not how.
///
/// A driver's encoder turns it into bytes for one printer profile, so the same document prints on a 58 mm
/// printer without native QR and on an 80 mm presenter printer.
public struct PrintDocument: Sendable, Equatable {
    public var blocks: [Block]

    public init(_ blocks: [Block] = []) {
        self.blocks = blocks
    }

    public enum Block: Sendable, Equatable {
        /// One or more lines of text; `\n` starts a new line. Long lines wrap on the printer.
        case text(String, TextStyle = TextStyle())
        /// A QR code with this payload, as large as fits (see ``QRSpec``).
        case qr(String, QRSpec = QRSpec())
        /// A 1-bit picture (a logo).
        case image(Bitmap, Alignment = .center)
        /// Blank lines.
        case feed(lines: Int)
        /// Cut the paper; the ticket ends here.
        case cut(CutKind = .partial)
    }

    public mutating func append(_ block: Block) {
        blocks.append(block)
    }
}

public enum Alignment: String, Sendable, Equatable, CaseIterable {
    case left, center, right
}

public enum CutKind: String, Sendable, Equatable {
    /// Leaves a small tab so a presenter or the customer can pull the ticket off.
    case partial
    case full
}

public struct TextStyle: Sendable, Equatable {
    public var bold: Bool
    public var underline: Bool
    /// Character magnification, 1...8 each (ESC/POS `GS !`).
    public var widthScale: Int
    public var heightScale: Int
    public var alignment: Alignment

    public init(
        bold: Bool = false,
        underline: Bool = false,
        widthScale: Int = 1,
        heightScale: Int = 1,
        alignment: Alignment = .left
    ) {
        self.bold = bold
        self.underline = underline
        self.widthScale = min(max(widthScale, 1), 8)
        self.heightScale = min(max(heightScale, 1), 8)
        self.alignment = alignment
    }
}

/// How a QR code should be printed. Error correction M keeps a ticket QR readable when creased.
public struct QRSpec: Sendable, Equatable {
    public enum ErrorCorrection: String, Sendable, Equatable, CaseIterable {
        case low = "L"
        case medium = "M"
        case quartile = "Q"
        case high = "H"
    }

    public var errorCorrection: ErrorCorrection
    /// Dots per module; nil lets the encoder pick the largest that fits the paper (at most 8).
    public var moduleSize: Int?
    public var alignment: Alignment

    public init(errorCorrection: ErrorCorrection = .medium, moduleSize: Int? = nil, alignment: Alignment = .center) {
        self.errorCorrection = errorCorrection
        self.moduleSize = moduleSize
        self.alignment = alignment
    }
}
