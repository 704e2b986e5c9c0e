/// ESC/POS command bytes, one function per command, each citing its section of Epson's
/// "ESC/POS Application Programming Guide / Command Reference" (and Custom's manual for its extension).
public enum EscPos {
    public static let ESC: UInt8 = 0x1B
    public static let GS: UInt8 = 0x1D
    public static let DLE: UInt8 = 0x10
    public static let EOT: UInt8 = 0x04
    public static let LF: UInt8 = 0x0A

    /// `DLE ENQ 2`: recover from an error and clear the receive and print buffers (real-time, so it works while
    /// a fault stops printing): what is left of an interrupted ticket is dropped, not finished when the fault
    /// clears.
    public static let clearBuffers: [UInt8] = [DLE, 0x05, 0x02]

    /// `ESC @`: initialize printer (clears the print buffer, resets modes).
    public static let initialize: [UInt8] = [ESC, 0x40]

    /// `ESC t n`: select character code table.
    public static func selectCodePage(_ n: UInt8) -> [UInt8] { [ESC, 0x74, n] }

    /// `ESC E n`: turn emphasized (bold) mode on/off.
    public static func bold(_ on: Bool) -> [UInt8] { [ESC, 0x45, on ? 1 : 0] }

    /// `ESC - n`: underline mode, n = 0 off, 1 one dot, 2 two dots.
    public static func underline(_ dots: UInt8) -> [UInt8] { [ESC, 0x2D, min(dots, 2)] }

    /// `GS ! n`: character size; bits 4-6 width magnification - 1, bits 0-2 height magnification - 1.
    public static func characterSize(width: Int, height: Int) -> [UInt8] {
        let w = UInt8(min(max(width, 1), 8) - 1)
        let h = UInt8(min(max(height, 1), 8) - 1)
        return [GS, 0x21, w << 4 | h]
    }

    /// `ESC a n`: justification, 0 left, 1 center, 2 right.
    public static func justification(_ n: UInt8) -> [UInt8] { [ESC, 0x61, n] }

    /// `ESC 3 n`: set line spacing to n motion units (dots).
    public static func lineSpacing(_ dots: UInt8) -> [UInt8] { [ESC, 0x33, dots] }

    /// `ESC 2`: select default line spacing.
    public static let defaultLineSpacing: [UInt8] = [ESC, 0x32]

    /// `ESC d n`: print the buffer and feed n lines.
    public static func printAndFeed(lines: UInt8) -> [UInt8] { [ESC, 0x64, lines] }

    /// `GS V m` (function A): m = 0 full cut, m = 1 partial cut.
    public static func cut(partial: Bool) -> [UInt8] { [GS, 0x56, partial ? 1 : 0] }

    /// `GS V m n` (function B): feed n dots past the cutting position, then cut; m = 65 full, 66 partial.
    public static func feedAndCut(partial: Bool, feedDots: UInt8) -> [UInt8] {
        [GS, 0x56, partial ? 66 : 65, feedDots]
    }

    // MARK: QR code, GS ( k with cn = 49 (0x31)

    /// `GS ( k` fn 165: select QR model; n1 = 49 model 1, 50 model 2, 51 micro QR.
    public static func qrSelectModel2() -> [UInt8] { [GS, 0x28, 0x6B, 4, 0, 0x31, 0x41, 50, 0] }

    /// `GS ( k` fn 167: module size in dots, 1...16.
    public static func qrModuleSize(_ dots: UInt8) -> [UInt8] { [GS, 0x28, 0x6B, 3, 0, 0x31, 0x43, dots] }

    /// `GS ( k` fn 169: error correction level, n = 48 L, 49 M, 50 Q, 51 H.
    public static func qrErrorCorrection(_ n: UInt8) -> [UInt8] { [GS, 0x28, 0x6B, 3, 0, 0x31, 0x45, n] }

    /// `GS ( k` fn 180: store data in the symbol storage area; (pL + pH·256) = k + 3, k ≤ 7089.
    public static func qrStore(_ data: [UInt8]) -> [UInt8] {
        precondition(data.count <= 7089, "GS ( k fn 180 stores at most 7089 bytes")
        let length = data.count + 3
        return [GS, 0x28, 0x6B, UInt8(length & 0xFF), UInt8(length >> 8), 0x31, 0x50, 0x30] + data
    }

    /// `GS ( k` fn 181: print the symbol data in the symbol storage area.
    public static let qrPrint: [UInt8] = [GS, 0x28, 0x6B, 3, 0, 0x31, 0x51, 0x30]

    // MARK: Raster image

    /// `GS v 0 m xL xH yL yH d1...dk`: print raster bit image, m = 0 normal; x = bytes per row, y = rows.
    public static func rasterImage(widthBytes: Int, height: Int, data: [UInt8]) -> [UInt8] {
        precondition(data.count == widthBytes * height, "raster data must be widthBytes × height")
        return [
            GS, 0x76, 0x30, 0, UInt8(widthBytes & 0xFF), UInt8(widthBytes >> 8), UInt8(height & 0xFF),
            UInt8(height >> 8),
        ] + data
    }

    // MARK: Status requests

    /// `DLE EOT n`: transmit real-time status, n = 1 printer, 2 offline cause, 3 error cause, 4 roll paper sensor.
    public static func realTimeStatus(_ n: UInt8) -> [UInt8] { [DLE, EOT, n] }

    /// Custom `DLE EOT 20` (10 04 14): transmit full status, answered with 10 0F and four status bytes.
    public static let customFullStatus: [UInt8] = [DLE, EOT, 0x14]

    /// `GS a n`: enable/disable Automatic Status Back; bit 0 drawer, 1 online/offline, 2 error, 3 roll paper.
    public static func automaticStatusBack(_ n: UInt8) -> [UInt8] { [GS, 0x61, n] }

    /// ASB mask that reports every change the kiosk cares about (online/offline, errors, paper).
    public static let asbAll: UInt8 = 0x0E

    /// `GS r n`: transmit status, n = 1 paper sensor status.
    public static let paperSensorStatus: [UInt8] = [GS, 0x72, 1]

    /// The request bytes for a status source.
    public static func request(_ source: StatusSource) -> [UInt8] {
        switch source {
        case .dleEot1: return realTimeStatus(1)
        case .dleEot2: return realTimeStatus(2)
        case .dleEot3: return realTimeStatus(3)
        case .dleEot4: return realTimeStatus(4)
        case .gsR1: return paperSensorStatus
        case .customFull: return customFullStatus
        case .asb: return automaticStatusBack(asbAll)
        }
    }
}
