/// A limit on a text, counted the way JSON Schema's `maxLength` counts (Unicode scalars), and checked in a
/// way a hostile text cannot make expensive: its UTF-8 length first (constant time; a scalar is at most 4
/// bytes), scalars only when that leaves a doubt. Never `Character`s: one grapheme cluster can be a letter
/// followed by megabytes of combining marks, and counting them walks all of it.
public struct TextLimit: Sendable, Hashable {
    public var scalars: ClosedRange<Int>

    public init(_ scalars: ClosedRange<Int>) {
        self.scalars = scalars
    }

    /// At most `scalars` (and at least none).
    public static func atMost(_ scalars: Int) -> TextLimit { TextLimit(0...scalars) }

    /// Whether `text` is within the limit.
    public func allows(_ text: some StringProtocol) -> Bool {
        let bytes = text.utf8.count
        guard bytes <= scalars.upperBound * 4 else { return false }
        guard bytes >= scalars.lowerBound else { return false }
        if bytes <= scalars.upperBound, bytes >= scalars.lowerBound * 4 { return true }
        return scalars.contains(text.unicodeScalars.count)
    }
}
