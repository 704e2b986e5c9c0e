/// A store's time zone: when its local clock is ahead of UTC by how much, daylight saving included. Ticket
/// numbers restart, slots start and the wait model counts hours by this clock, never by the box's own setting.
///
/// Built from the bytes of a compiled IANA zone (TZif, RFC 8536 — what `/usr/share/zoneinfo` holds; reading
/// the file is the caller's I/O) or as a fixed offset. Times after the file's last transition follow its
/// footer's POSIX rule (RFC 8536 §3.3), so a "slim" file is as good as a "fat" one.
public struct StoreTimeZone: Sendable, Hashable, CustomStringConvertible {
    /// The IANA name (`Europe/Rome`), or `UTC±HH:MM` for a fixed offset.
    public let identifier: String
    /// Seconds since 1970 at which a new offset starts, ascending.
    private let transitions: [Int64]
    /// `offsets[i]`: seconds ahead of UTC from `transitions[i]` on.
    private let offsets: [Int32]
    /// Before the first transition (the file's first time type).
    private let initialOffset: Int32
    /// After the last transition.
    private let rule: PosixZoneRule?

    public static let utc = StoreTimeZone(fixedOffsetSeconds: 0)

    /// A zone that is always `offsetSeconds` ahead of UTC, named `UTC±HH:MM` (`UTC` for zero).
    public init(fixedOffsetSeconds offsetSeconds: Int) {
        identifier = Self.fixedName(offsetSeconds)
        transitions = []
        offsets = []
        initialOffset = Int32(clamping: offsetSeconds)
        rule = nil
    }

    /// Parses a compiled zone. Throws when the bytes are not TZif or are cut short.
    public init(identifier: String, tzif bytes: [UInt8]) throws(TimeZoneDataError) {
        var reader = TZifReader(bytes: bytes)
        let first = try reader.header()
        if first.version == 0 {
            let block = try reader.block(first, timeSize: 4)
            (transitions, offsets, initialOffset) = block
            rule = nil
        } else {
            try reader.skip(first.blockSize(timeSize: 4))
            let second = try reader.header()
            (transitions, offsets, initialOffset) = try reader.block(second, timeSize: 8)
            let footer = reader.footer()
            rule = footer.isEmpty ? nil : try PosixZoneRule(footer)
        }
        self.identifier = identifier
    }

    /// Seconds the store's clock is ahead of UTC at `time`.
    public func offset(at time: Timestamp) -> Int {
        let s = time.seconds
        if let rule, transitions.last.map({ s >= $0 }) ?? true { return rule.offset(at: s) }
        guard let first = transitions.first, s >= first else { return Int(initialOffset) }
        var low = 0
        var high = transitions.count - 1
        while low < high {  // the last transition at or before s
            let mid = (low + high + 1) / 2
            if transitions[mid] <= s { low = mid } else { high = mid - 1 }
        }
        return Int(offsets[low])
    }

    /// The instant the store's clock shows `localSeconds` (seconds since 1970-01-01 00:00 on that clock). A time
    /// the clock skips (spring forward) is read with the offset before the change, so it lands that much after
    /// the change; a time it shows twice (fall back) gives the first.
    public func instant(localSeconds: Int64) -> Timestamp {
        let near = Timestamp(seconds: localSeconds)
        let before = Int64(offset(at: near - .seconds(86_400)))
        let after = Int64(offset(at: near + .seconds(86_400)))
        let valid = [before, after].map { localSeconds - $0 }.filter {
            Int64(offset(at: Timestamp(seconds: $0))) == localSeconds - $0
        }
        return Timestamp(seconds: valid.min() ?? localSeconds - before)
    }

    /// Seconds since 1970-01-01 00:00 on the store's clock at `time`.
    public func localSeconds(at time: Timestamp) -> Int64 { time.seconds + Int64(offset(at: time)) }

    public var description: String { identifier }

    /// `UTC+01:00`, `UTC-03:30`, `UTC`.
    public static func fixedName(_ offsetSeconds: Int) -> String {
        guard offsetSeconds != 0 else { return "UTC" }
        let minutes = abs(offsetSeconds) / 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "UTC" + (offsetSeconds < 0 ? "-" : "+") + two(minutes / 60) + ":" + two(minutes % 60)
    }

    /// Reads `UTC`, `UTC±HH`, `UTC±HH:MM` (±14:00 at most) as a fixed offset in seconds.
    public static func fixedOffset(named name: String) -> Int? {
        guard name.hasPrefix("UTC") else { return nil }
        let rest = name.dropFirst(3)
        if rest.isEmpty { return 0 }
        guard let sign = rest.first, sign == "+" || sign == "-" else { return nil }
        let parts = rest.dropFirst().split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hours = Int(parts[0]), let minutes = parts.count == 2 ? Int(parts[1]) : 0,
            minutes < 60, hours * 60 + minutes <= 14 * 60
        else { return nil }
        return (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
    }
}

/// Bytes that are not a compiled time zone.
public struct TimeZoneDataError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// RFC 8536's layout: a header, a data block (4-byte times; again with 8-byte times from version 2), a footer.
private struct TZifReader {
    struct Header {
        var version: Int
        var isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt: Int

        func blockSize(timeSize: Int) -> Int {
            timecnt * timeSize + timecnt + typecnt * 6 + charcnt + leapcnt * (timeSize + 4) + isstdcnt + isutcnt
        }
    }

    let bytes: [UInt8]
    var at = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func header() throws(TimeZoneDataError) -> Header {
        guard bytes.count >= at + 44, bytes[at..<at + 4].elementsEqual("TZif".utf8) else {
            throw TimeZoneDataError(description: "not a compiled time zone (no TZif header)")
        }
        // Version 0 (the NUL byte), or '2' to '4'.
        guard let version = [0: 0, 0x32: 2, 0x33: 3, 0x34: 4][bytes[at + 4]] else {
            throw TimeZoneDataError(description: "a compiled time zone of an unknown version")
        }
        at += 20
        var counts: [Int] = []
        for _ in 0..<6 { counts.append(Int(integer(4))) }
        let header = Header(
            version: version,
            isutcnt: counts[0],
            isstdcnt: counts[1],
            leapcnt: counts[2],
            timecnt: counts[3],
            typecnt: counts[4],
            charcnt: counts[5]
        )
        guard header.typecnt >= 1, header.typecnt <= 256, counts.allSatisfy({ (0..<1 << 20).contains($0) }) else {
            throw TimeZoneDataError(description: "a compiled time zone with impossible counts")
        }
        return header
    }

    mutating func skip(_ count: Int) throws(TimeZoneDataError) {
        guard bytes.count >= at + count else { throw TimeZoneDataError(description: "a compiled time zone cut short") }
        at += count
    }

    /// Transition times, the offset each starts, and the offset before the first.
    mutating func block(_ h: Header, timeSize: Int) throws(TimeZoneDataError) -> ([Int64], [Int32], Int32) {
        guard bytes.count >= at + h.blockSize(timeSize: timeSize) else {
            throw TimeZoneDataError(description: "a compiled time zone cut short")
        }
        var times: [Int64] = []
        for _ in 0..<h.timecnt { times.append(integer(timeSize)) }
        let indices = bytes[at..<at + h.timecnt].map(Int.init)
        at += h.timecnt
        var types: [Int32] = []
        for _ in 0..<h.typecnt {
            types.append(Int32(truncatingIfNeeded: integer(4)))
            at += 2  // isdst, desigidx
        }
        guard indices.allSatisfy({ $0 < types.count }), zip(times, times.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw TimeZoneDataError(description: "a compiled time zone with transitions out of order or unknown types")
        }
        at += h.charcnt + h.leapcnt * (timeSize + 4) + h.isstdcnt + h.isutcnt
        return (times, indices.map { types[$0] }, types[0])
    }

    /// The POSIX TZ string between two newlines after the second block (empty when absent).
    func footer() -> String {
        guard at < bytes.count, bytes[at] == UInt8(ascii: "\n"),
            let end = bytes[(at + 1)...].firstIndex(of: UInt8(ascii: "\n"))
        else { return "" }
        return String(decoding: bytes[(at + 1)..<end], as: UTF8.self)
    }

    /// A big-endian signed integer of `size` bytes (4 or 8).
    mutating func integer(_ size: Int) -> Int64 {
        var value: UInt64 = 0
        for byte in bytes[at..<at + size] { value = value << 8 | UInt64(byte) }
        at += size
        return size == 4 ? Int64(Int32(truncatingIfNeeded: value)) : Int64(bitPattern: value)
    }
}
