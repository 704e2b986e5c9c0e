/// A point in time: milliseconds since the Unix epoch (UTC). Plain data, so the core never reads a clock:
/// whoever calls in passes "now".
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public var milliseconds: Int64

    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    public init(seconds: Int64) {
        self.milliseconds = seconds * 1000
    }

    public var seconds: Int64 { milliseconds.floorDivided(by: 1000) }

    public static func < (a: Self, b: Self) -> Bool { a.milliseconds < b.milliseconds }

    public static func + (t: Self, d: Duration) -> Self {
        Timestamp(milliseconds: t.milliseconds + d.wholeMilliseconds)
    }
    public static func - (t: Self, d: Duration) -> Self {
        Timestamp(milliseconds: t.milliseconds - d.wholeMilliseconds)
    }
    public static func - (a: Self, b: Self) -> Duration { .milliseconds(a.milliseconds - b.milliseconds) }

    /// The times a timestamp may hold when it comes from outside (a request, a file): years 1 to 9999. Within
    /// them, adding or subtracting any duration the system uses (days, years) cannot overflow.
    public static let representable: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let value = try container.decode(Int64.self)
        guard Self.representable.contains(value) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "milliseconds since 1970 between years 1 and 9999"
            )
        }
        milliseconds = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(milliseconds)
    }

    public var description: String { "\(milliseconds)ms" }
}

extension Duration {
    /// Whole milliseconds, truncated towards zero.
    public var wholeMilliseconds: Int64 {
        let (s, atto) = components
        return s * 1000 + atto / 1_000_000_000_000_000
    }
}

extension Int64 {
    /// Division rounding towards negative infinity (times before 1970 stay on the right day).
    public func floorDivided(by d: Int64) -> Int64 {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }
}
