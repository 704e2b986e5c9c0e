/// A POSIX `TZ` rule (`CET-1CEST,M3.5.0,M10.5.0/3`): a standard offset, and optionally a daylight-saving offset
/// with the yearly dates it starts and ends — what a compiled zone's footer says about the years after its
/// table (RFC 8536 §3.3, with its extension of hours from -167 to 167).
struct PosixZoneRule: Sendable, Hashable {
    /// A yearly date and the local time of the change, seconds after that day's midnight.
    enum Day: Sendable, Hashable {
        /// `Jn`: day 1…365, February 29 never counted.
        case julian(Int)
        /// `n`: day 0…365, February 29 counted.
        case zeroBased(Int)
        /// `Mm.w.d`: weekday d (0 = Sunday) of week w (1…5, 5 = the last) of month m.
        case month(Int, week: Int, weekday: Int)
    }

    /// Seconds ahead of UTC.
    var standard: Int
    var daylight: Int?
    private var startDay: Day?
    private var startTime = 7200
    private var endDay: Day?
    private var endTime = 7200

    init(_ text: String) throws(TimeZoneDataError) {
        var p = Parser(Array(text.utf8))
        try p.name()
        standard = -(try p.offset())
        guard !p.atEnd else { return }
        try p.name()
        daylight = p.peek == UInt8(ascii: ",") || p.atEnd ? standard + 3600 : -(try p.offset())
        guard !p.atEnd else { return }
        try p.expect(",")
        startDay = try p.day()
        if p.peek == UInt8(ascii: "/") {
            p.skip()
            startTime = try p.offset()
        }
        try p.expect(",")
        endDay = try p.day()
        if p.peek == UInt8(ascii: "/") {
            p.skip()
            endTime = try p.offset()
        }
        guard p.atEnd else { throw p.error }
    }

    func offset(at seconds: Int64) -> Int {
        guard let daylight, let startDay, let endDay else { return standard }
        let year = BusinessDay(number: (seconds + Int64(standard)).floorDivided(by: 86_400)).civilDate.year
        // The change to daylight time happens at a time of standard time, the change back at one of daylight.
        let start = Self.midnight(startDay, year) + Int64(startTime - standard)
        let end = Self.midnight(endDay, year) + Int64(endTime - daylight)
        let inDaylight = start < end ? (start <= seconds && seconds < end) : !(end <= seconds && seconds < start)
        return inDaylight ? daylight : standard
    }

    /// Seconds since 1970 of the day's midnight, UTC (the caller adds the local time and the offset).
    private static func midnight(_ day: Day, _ year: Int64) -> Int64 {
        let jan1 = daysFromCivil(year, 1, 1)
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days: Int64
        switch day {
        case .julian(let n): days = jan1 + Int64(n - 1) + (leap && n >= 60 ? 1 : 0)
        case .zeroBased(let n): days = jan1 + Int64(n)
        case .month(let m, let week, let weekday):
            let first = daysFromCivil(year, Int64(m), 1)
            let firstWeekday = Int(((first + 4) % 7 + 7) % 7)  // 0 = Sunday; 1970-01-01 was a Thursday
            var d = first + Int64((weekday - firstWeekday + 7) % 7 + 7 * (week - 1))
            let nextMonth = m == 12 ? daysFromCivil(year + 1, 1, 1) : daysFromCivil(year, Int64(m + 1), 1)
            while d >= nextMonth { d -= 7 }
            days = d
        }
        return days * 86_400
    }

    /// Days since 1970-01-01 of a civil date.
    static func daysFromCivil(_ year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        BusinessDay(year: year, month: month, day: day).number
    }

    private struct Parser {
        let bytes: [UInt8]
        var at = 0
        let error: TimeZoneDataError

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
            error = TimeZoneDataError(description: "'\(String(decoding: bytes, as: UTF8.self))' is not a POSIX TZ rule")
        }

        var atEnd: Bool { at >= bytes.count }
        var peek: UInt8? { atEnd ? nil : bytes[at] }
        mutating func skip() { at += 1 }

        mutating func expect(_ c: Character) throws(TimeZoneDataError) {
            guard peek == c.asciiValue else { throw error }
            skip()
        }

        /// `CET` or `<+0330>`.
        mutating func name() throws(TimeZoneDataError) {
            if peek == UInt8(ascii: "<") {
                guard let close = bytes[at...].firstIndex(of: UInt8(ascii: ">")) else { throw error }
                at = close + 1
                return
            }
            let start = at
            while let c = peek, (c >= 65 && c <= 90) || (c >= 97 && c <= 122) { skip() }
            guard at - start >= 3 else { throw error }
        }

        mutating func number() throws(TimeZoneDataError) -> Int {
            var value = 0
            var digits = 0
            while let c = peek, c >= 48, c <= 57, digits < 4 {
                value = value * 10 + Int(c - 48)
                digits += 1
                skip()
            }
            guard digits > 0 else { throw error }
            return value
        }

        /// `[+-]h[:mm[:ss]]` as seconds (POSIX: positive west of Greenwich; a rule's time: after midnight).
        mutating func offset() throws(TimeZoneDataError) -> Int {
            var sign = 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") {
                sign = peek == UInt8(ascii: "-") ? -1 : 1
                skip()
            }
            let hours = try number()
            var seconds = hours * 3600
            if peek == UInt8(ascii: ":") {
                skip()
                seconds += try number() * 60
            }
            if peek == UInt8(ascii: ":") {
                skip()
                seconds += try number()
            }
            guard hours <= 167 else { throw error }
            return sign * seconds
        }

        mutating func day() throws(TimeZoneDataError) -> Day {
            switch peek {
            case UInt8(ascii: "J"):
                skip()
                let n = try number()
                guard (1...365).contains(n) else { throw error }
                return .julian(n)
            case UInt8(ascii: "M"):
                skip()
                let m = try number()
                try expect(".")
                let w = try number()
                try expect(".")
                let d = try number()
                guard (1...12).contains(m), (1...5).contains(w), (0...6).contains(d) else { throw error }
                return .month(m, week: w, weekday: d)
            default:
                let n = try number()
                guard (0...365).contains(n) else { throw error }
                return .zeroBased(n)
            }
        }
    }
}
