import KioskCore
import QRSymbol

extension QRMatrix {
    /// The symbol for `data`, or a printer error that says what to shorten.
    static func forPrinter(_ data: [UInt8], errorCorrection: QRSpec.ErrorCorrection) throws(PrinterError) -> QRMatrix {
        do {
            return try encode(data, errorCorrection: errorCorrection)
        } catch {
            throw PrinterError(.unsupported, device: "qr", error.description)
        }
    }
}
