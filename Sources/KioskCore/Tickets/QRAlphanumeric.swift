/// Bytes as characters of QR alphanumeric mode, so a QR holds them at 5.5 bits a character: two bytes in three
/// characters, a last odd byte in two, least significant digit first.
///
/// ``base45`` is RFC 9285's (all 45 characters of the mode). ``url42`` leaves out the three that cannot
/// stand in a URL's path — space, `%` and `/` — and keeps `0-9 A-Z $ * + - . :`: 42³ still exceeds 2¹⁶, so a
/// code is exactly as long, and the status URL followed by it is one URL whose last path segment is the code.
public struct QRAlphanumeric: Sendable {
    let alphabet: [UInt8]
    let values: [UInt8: Int]

    init(_ characters: String) {
        alphabet = Array(characters.utf8)
        values = Dictionary(uniqueKeysWithValues: alphabet.enumerated().map { ($1, $0) })
    }

    public static let base45 = QRAlphanumeric("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:")
    public static let url42 = QRAlphanumeric("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ$*+-.:")

    var radix: Int { alphabet.count }

    public func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 3 / 2 + 2)
        var i = 0
        while i + 1 < bytes.count {
            var n = Int(bytes[i]) * 256 + Int(bytes[i + 1])
            for _ in 0..<3 {
                out.append(alphabet[n % radix])
                n /= radix
            }
            i += 2
        }
        if i < bytes.count {
            let n = Int(bytes[i])
            out.append(alphabet[n % radix])
            out.append(alphabet[n / radix])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Nil for a character outside the alphabet, a dangling single character, or a group over its range.
    public func decode<Text: StringProtocol>(_ text: Text) -> [UInt8]? {
        var digits: [Int] = []
        digits.reserveCapacity(text.utf8.count)
        for c in text.utf8 {
            guard let v = values[c] else { return nil }
            digits.append(v)
        }
        var out: [UInt8] = []
        var i = 0
        while i < digits.count {
            let remaining = digits.count - i
            if remaining >= 3 {
                let n = digits[i] + digits[i + 1] * radix + digits[i + 2] * radix * radix
                guard n <= 0xFFFF else { return nil }
                out.append(UInt8(n >> 8))
                out.append(UInt8(n & 0xFF))
                i += 3
            } else if remaining == 2 {
                let n = digits[i] + digits[i + 1] * radix
                guard n <= 0xFF else { return nil }
                out.append(UInt8(n))
                i += 2
            } else {
                return nil
            }
        }
        return out
    }

    /// Whether every character of `text` is in the alphabet.
    public func contains(allOf text: String) -> Bool { text.utf8.allSatisfy { values[$0] != nil } }
}

/// Base45 (RFC 9285): the first ticket format's text form.
public enum Base45 {
    static let values = QRAlphanumeric.base45.values

    public static func encode(_ bytes: [UInt8]) -> String { QRAlphanumeric.base45.encode(bytes) }

    public static func decode(_ text: String) -> [UInt8]? { QRAlphanumeric.base45.decode(text) }
}
