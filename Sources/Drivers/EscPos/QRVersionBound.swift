import KioskCore
import QRSymbol
import Synchronization

/// The smallest QR version that surely holds data of a given length and character class, without encoding
/// the data itself.
///
/// For native QR (`GS ( k`) the printer builds the symbol; the driver only has to know that the data fits the
/// printer's largest version and how many modules to plan for. The bound is the version libqrencode needs for
/// the worst case of the class (all bytes non-alphanumeric; all characters alphanumeric non-digits; all digits),
/// which no data of that length and class can exceed. Results are remembered per (length, class, level), so a
/// station printing codes of one format pays for one encode, not one per ticket.
enum QRVersionBound {
    enum CharacterClass: Hashable {
        case numeric, alphanumeric, binary

        init(_ data: [UInt8]) {
            if data.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                self = .numeric
            } else if data.allSatisfy(Self.isAlphanumeric) {
                self = .alphanumeric
            } else {
                self = .binary
            }
        }

        /// QR alphanumeric mode: 0-9, A-Z, space, $ % * + - . / :
        static func isAlphanumeric(_ b: UInt8) -> Bool {
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A)
                || [0x20, 0x24, 0x25, 0x2A, 0x2B, 0x2D, 0x2E, 0x2F, 0x3A].contains(b)
        }

        func worstCase(count: Int) -> [UInt8] {
            switch self {
            case .numeric: return [UInt8](repeating: 0x39, count: count)
            case .alphanumeric: return [UInt8](repeating: 0x41, count: count)
            case .binary: return [UInt8](repeating: 0x80, count: count)
            }
        }
    }

    private struct Key: Hashable {
        var count: Int
        var characterClass: CharacterClass
        var level: QRSpec.ErrorCorrection
    }

    private static let cache = Mutex<[Key: Int]>([:])

    /// The version bound, or an error if no QR version holds data of this length and class.
    static func version(for data: [UInt8], errorCorrection: QRSpec.ErrorCorrection) throws(PrinterError) -> Int {
        let key = Key(count: data.count, characterClass: CharacterClass(data), level: errorCorrection)
        if let known = cache.withLock({ $0[key] }) { return known }
        let sample = key.characterClass.worstCase(count: data.count)
        let version = try QRMatrix.forPrinter(sample, errorCorrection: errorCorrection).version
        cache.withLock { $0[key] = version }
        return version
    }
}
