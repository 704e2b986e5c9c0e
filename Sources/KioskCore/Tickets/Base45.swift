/// Base45 (RFC 9285): bytes as characters of QR alphanumeric mode, so a QR holds them at 5.5 bits a character.
public enum Base45 {
    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)
    static let values: [UInt8: Int] = Dictionary(uniqueKeysWithValues: alphabet.enumerated().map { ($1, $0) })

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 3 / 2 + 2)
        var i = 0
        while i + 1 < bytes.count {
            var n = Int(bytes[i]) * 256 + Int(bytes[i + 1])
            for _ in 0..<3 {
                out.append(alphabet[n % 45])
                n /= 45
            }
            i += 2
        }
        if i < bytes.count {
            let n = Int(bytes[i])
            out.append(alphabet[n % 45])
            out.append(alphabet[n / 45])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Nil for a character outside the alphabet, a dangling single character, or a group over its range.
    public static func decode(_ text: String) -> [UInt8]? {
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
                let n = digits[i] + digits[i + 1] * 45 + digits[i + 2] * 2025
                guard n <= 0xFFFF else { return nil }
                out.append(UInt8(n >> 8))
                out.append(UInt8(n & 0xFF))
                i += 3
            } else if remaining == 2 {
                let n = digits[i] + digits[i + 1] * 45
                guard n <= 0xFF else { return nil }
                out.append(UInt8(n))
                i += 2
            } else {
                return nil
            }
        }
        return out
    }
}
