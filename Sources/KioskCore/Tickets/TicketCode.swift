/// The short human code on a ticket, e.g. `A042`: a per-printer prefix and a number that restarts every
/// business day. Three digits at least; a busy day goes on to `A1000`.
public struct TicketCode: Sendable, Hashable, Codable, CustomStringConvertible, Comparable {
    public var prefix: String
    public var number: Int

    public init(prefix: String, number: Int) {
        self.prefix = prefix
        self.number = number
    }

    /// The numbers a code may carry: the signed code holds the number in 16 bits.
    public static let numbers = 0...Int(UInt16.max)

    /// A valid prefix is one or two upper-case ASCII letters.
    public static func isValidPrefix(_ prefix: String) -> Bool {
        (1...2).contains(prefix.count) && prefix.unicodeScalars.allSatisfy { $0.value >= 0x41 && $0.value <= 0x5A }
    }

    public var description: String {
        let digits = String(number)
        return prefix + String(repeating: "0", count: max(0, 3 - digits.count)) + digits
    }

    public init?(_ text: String) {
        let letters = text.prefix { $0.isLetter }
        guard Self.isValidPrefix(String(letters)), let number = Int(text.dropFirst(letters.count)), number >= 0 else {
            return nil
        }
        self.init(prefix: String(letters), number: number)
    }

    public static func < (a: Self, b: Self) -> Bool { (a.prefix, a.number) < (b.prefix, b.number) }
}
