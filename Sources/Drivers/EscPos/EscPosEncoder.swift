import KioskCore
import QRSymbol

/// Turns a ``PrintDocument`` into ESC/POS bytes for one printer profile.
///
/// Emits a style command only when the style changes, picks for each character the first of the profile's
/// code pages that has it (switching with `ESC t` when needed, `?` when none has it), and sends QR codes
/// natively (`GS ( k`) or as a raster image (`GS v 0`) depending on the profile.
public struct EscPosEncoder: Sendable {
    public enum QRMode: String, Sendable, CaseIterable {
        /// Native when the profile supports it, raster otherwise.
        case auto
        case native
        case raster
    }

    public let profile: PrinterProfile
    public let qrMode: QRMode

    public init(profile: PrinterProfile, qrMode: QRMode = .auto) {
        self.profile = profile
        self.qrMode = qrMode
    }

    /// Whether QR codes go out as `GS ( k`.
    public var usesNativeQR: Bool {
        switch qrMode {
        case .auto: return profile.nativeQR
        case .native: return true
        case .raster: return false
        }
    }

    public func encode(_ document: PrintDocument) throws(PrinterError) -> [UInt8] {
        var state = WriterState(pageIndex: 0)
        var out = EscPos.initialize
        out += EscPos.selectCodePage(profile.codePages[0].escT)
        for block in document.blocks {
            switch block {
            case .text(let text, let style):
                encodeText(text, style: style, state: &state, into: &out)
            case .qr(let payload, let spec):
                try encodeQR(Array(payload.utf8), spec: spec, state: &state, into: &out)
            case .image(let bitmap, let alignment):
                try encodeImage(bitmap, alignment: alignment, state: &state, into: &out)
            case .feed(let lines):
                out += EscPos.printAndFeed(lines: UInt8(clamping: lines))
            case .cut(let kind):
                if profile.feedBeforeCut > 0 { out += EscPos.printAndFeed(lines: UInt8(profile.feedBeforeCut)) }
                out += EscPos.cut(partial: kind == .partial)
            }
        }
        return out
    }

    /// Bytes for one string in the profile's code pages; what `?` replaced is counted in `replaced`.
    public func encodeCharacters(_ text: String, pageIndex: inout Int, replaced: inout Int) -> [UInt8] {
        var out: [UInt8] = []
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                out.append(EscPos.LF)
                continue
            }
            let candidate: Unicode.Scalar = scalar == "\t" ? " " : scalar
            if let byte = profile.codePages[pageIndex].page.byte(for: candidate) {
                out.append(byte)
            } else if let other = profile.codePages.firstIndex(where: { $0.page.byte(for: candidate) != nil }) {
                pageIndex = other
                out += EscPos.selectCodePage(profile.codePages[other].escT)
                out.append(profile.codePages[other].page.byte(for: candidate)!)
            } else {
                replaced += 1
                out.append(UInt8(ascii: "?"))
            }
        }
        return out
    }

    // MARK: - Blocks

    private struct WriterState {
        var pageIndex: Int
        var bold = false
        var underline = false
        var width = 1
        var height = 1
        var alignment: Alignment = .left
    }

    private func encodeText(_ text: String, style: TextStyle, state: inout WriterState, into out: inout [UInt8]) {
        align(style.alignment, state: &state, into: &out)
        if style.bold != state.bold {
            out += EscPos.bold(style.bold)
            state.bold = style.bold
        }
        if style.underline != state.underline {
            out += EscPos.underline(style.underline ? 1 : 0)
            state.underline = style.underline
        }
        if style.widthScale != state.width || style.heightScale != state.height {
            out += EscPos.characterSize(width: style.widthScale, height: style.heightScale)
            state.width = style.widthScale
            state.height = style.heightScale
        }
        var replaced = 0
        out += encodeCharacters(text, pageIndex: &state.pageIndex, replaced: &replaced)
        if !text.hasSuffix("\n") { out.append(EscPos.LF) }
    }

    private func align(_ alignment: Alignment, state: inout WriterState, into out: inout [UInt8]) {
        guard alignment != state.alignment else { return }
        let n: UInt8 = alignment == .left ? 0 : alignment == .center ? 1 : 2
        out += EscPos.justification(n)
        state.alignment = alignment
    }

    private func encodeQR(
        _ data: [UInt8],
        spec: QRSpec,
        state: inout WriterState,
        into out: inout [UInt8]
    ) throws(PrinterError) {
        let native = usesNativeQR
        // Native: the printer builds the symbol, a version bound is enough. Raster: we draw the real symbol.
        let matrix = native ? nil : try QRMatrix.forPrinter(data, errorCorrection: spec.errorCorrection)
        let version: Int
        if let matrix {
            version = matrix.version
        } else {
            version = try QRVersionBound.version(for: data, errorCorrection: spec.errorCorrection)
        }
        if native && version > profile.qrMaxVersion {
            throw PrinterError(
                .unsupported,
                device: profile.name,
                "\(data.count) bytes need QR version \(version); this printer accepts up to version "
                    + "\(profile.qrMaxVersion) — shorten the payload or lower the error correction"
            )
        }
        let modules = 17 + 4 * version
        // Four modules of quiet zone on each side must fit on the paper too.
        let fitting = profile.dotsPerLine / (modules + 8)
        let moduleSize = min(spec.moduleSize ?? min(fitting, 8), 16)
        guard moduleSize >= 1, moduleSize <= fitting else {
            throw PrinterError(
                .unsupported,
                device: profile.name,
                "a QR of version \(version) (\(modules) modules) at \(spec.moduleSize ?? 1) dots per "
                    + "module does not fit \(profile.dotsPerLine) dots — shorten the payload or the module size"
            )
        }
        align(spec.alignment, state: &state, into: &out)
        if native {
            out += EscPos.qrSelectModel2()
            out += EscPos.qrModuleSize(UInt8(moduleSize))
            let ec: UInt8
            switch spec.errorCorrection {
            case .low: ec = 48
            case .medium: ec = 49
            case .quartile: ec = 50
            case .high: ec = 51
            }
            out += EscPos.qrErrorCorrection(ec)
            out += EscPos.qrStore(data)
            out += EscPos.qrPrint
        } else if let matrix {
            let bitmap = matrix.bitmap(moduleSize: moduleSize)
            out += EscPos.rasterImage(widthBytes: bitmap.rowBytes, height: bitmap.height, data: bitmap.bits)
        }
    }

    private func encodeImage(
        _ bitmap: Bitmap,
        alignment: Alignment,
        state: inout WriterState,
        into out: inout [UInt8]
    ) throws(PrinterError) {
        guard bitmap.width <= profile.dotsPerLine else {
            throw PrinterError(
                .unsupported,
                device: profile.name,
                "the image is \(bitmap.width) dots wide; this printer prints \(profile.dotsPerLine) — scale it down"
            )
        }
        guard bitmap.height > 0 else { return }
        align(alignment, state: &state, into: &out)
        // GS v 0 takes at most 2303 rows per command on Epson printers; send tall images in bands.
        var row = 0
        while row < bitmap.height {
            let rows = min(bitmap.height - row, 2303)
            let start = row * bitmap.rowBytes
            let band = Array(bitmap.bits[start..<(start + rows * bitmap.rowBytes)])
            out += EscPos.rasterImage(widthBytes: bitmap.rowBytes, height: rows, data: band)
            row += rows
        }
    }
}
