/// QRSymbol: QR symbols computed by libqrencode, for everything that draws one — the printer drivers
/// (raster QR, version bounds), the emulator (what `GS ( k` asked for) and the server's pages (SVG).
import CQREncode
import Glibc
import KioskCore

/// A QR symbol as a square of modules, computed by libqrencode.
///
/// Used to print QR as a raster image on printers without `GS ( k`, to check that data fits a printer's
/// largest QR version before sending it natively, by the emulator to draw what `GS ( k` asked for, and by
/// the server to draw a ticket's QR on its page.
public struct QRMatrix: Sendable, Equatable {
    public let version: Int
    /// Modules per side (no quiet zone).
    public let size: Int
    private let modules: [Bool]

    public subscript(x: Int, y: Int) -> Bool { modules[y * size + x] }

    /// Encodes `data` at the smallest version that holds it. Text that has no NUL byte is encoded as a string
    /// so libqrencode can use numeric and alphanumeric segments, as an Epson printer's `GS ( k` does.
    public static func encode(
        _ data: [UInt8],
        errorCorrection: QRSpec.ErrorCorrection,
        maxVersion: Int = 40
    ) throws(QRMatrix.TooLarge) -> QRMatrix {
        guard !data.isEmpty else {
            throw TooLarge("a QR code needs at least one byte of data")
        }
        let level: QRecLevel
        switch errorCorrection {
        case .low: level = QR_ECLEVEL_L
        case .medium: level = QR_ECLEVEL_M
        case .quartile: level = QR_ECLEVEL_Q
        case .high: level = QR_ECLEVEL_H
        }
        let code: UnsafeMutablePointer<QRcode>?
        if data.contains(0) {
            code = data.withUnsafeBufferPointer { QRcode_encodeData(CInt($0.count), $0.baseAddress, 0, level) }
        } else {
            code = (data + [0]).withUnsafeBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    QRcode_encodeString($0, 0, level, QR_MODE_8, 1)
                }
            }
        }
        guard let code else {
            throw TooLarge(
                "\(data.count) bytes do not fit in any QR code at error correction \(errorCorrection.rawValue) — "
                    + "shorten the payload"
            )
        }
        defer { QRcode_free(code) }
        let version = Int(code.pointee.version)
        guard version <= maxVersion else {
            throw TooLarge(
                "\(data.count) bytes need QR version \(version); this printer accepts up to version \(maxVersion) — "
                    + "shorten the payload or lower the error correction"
            )
        }
        let size = Int(code.pointee.width)
        var modules = [Bool](repeating: false, count: size * size)
        for i in 0..<(size * size) {
            modules[i] = code.pointee.data[i] & 1 != 0
        }
        return QRMatrix(version: version, size: size, modules: modules)
    }

    /// Data that no QR symbol (or none the caller accepts) holds; the message says what to change.
    public struct TooLarge: Error, Sendable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    private init(version: Int, size: Int, modules: [Bool]) {
        self.version = version
        self.size = size
        self.modules = modules
    }

    /// The symbol drawn at `moduleSize` dots per module with a quiet zone of `quietZone` modules.
    public func bitmap(moduleSize: Int, quietZone: Int = 0) -> Bitmap {
        let side = (size + 2 * quietZone) * moduleSize
        var bitmap = Bitmap(width: side, height: side)
        for y in 0..<size {
            for x in 0..<size where self[x, y] {
                bitmap.fill(
                    x: (x + quietZone) * moduleSize,
                    y: (y + quietZone) * moduleSize,
                    width: moduleSize,
                    height: moduleSize
                )
            }
        }
        return bitmap
    }
}
