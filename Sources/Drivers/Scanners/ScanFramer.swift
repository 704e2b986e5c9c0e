/// Splits the byte stream of a serial (or CDC-ACM) scanner into scans.
///
/// A scan ends at the configured suffix (CR, LF, CRLF or Tab). An AIM symbology identifier (`]` + code
/// character + modifier, e.g. `]Q1`) at its start is recognised and stripped. Input that is too long without a
/// suffix, not UTF-8, or carries control bytes is refused with a reason, and framing resumes after the next
/// suffix; a partial line followed by silence is refused by ``expire(now:)``. Pure: time is a parameter.
public struct ScanFramer: Sendable {
    public enum Suffix: String, Sendable, CaseIterable {
        case cr, lf, crlf, tab
    }

    public let suffix: Suffix
    public let maxLength: Int
    public let partialTimeout: Duration
    private var buffer: [UInt8] = []
    /// Bytes dropped since an over-long line began; framing restarts after its suffix.
    private var discarding = 0
    private var lastByteAt: Duration?

    public init(suffix: Suffix = .cr, maxLength: Int = 4096, partialTimeout: Duration = .milliseconds(500)) {
        self.suffix = suffix
        self.maxLength = maxLength
        self.partialTimeout = partialTimeout
    }

    public var hasPartialLine: Bool { !buffer.isEmpty || discarding > 0 }

    public mutating func feed(_ bytes: some Sequence<UInt8>, now: Duration) -> [ScanEvent] {
        let bytes = Array(bytes)
        var events: [ScanEvent] = []
        var start = 0
        // Whole runs between terminators at a time: a flood of input costs a scan for the line end per line.
        while let end = bytes[start...].firstIndex(where: isTerminator) {
            take(bytes[start..<end])
            if let event = finishLine() { events.append(event) }
            start = end + 1
        }
        take(bytes[start...])
        if !hasPartialLine {
            lastByteAt = nil
        } else if !bytes.isEmpty {
            lastByteAt = now  // silence is measured from the last byte, not the last read
        }
        return events
    }

    /// Adds bytes of the current line, switching to discarding once it is over the limit.
    private mutating func take(_ run: ArraySlice<UInt8>) {
        guard !run.isEmpty else { return }
        if discarding > 0 {
            discarding += run.count
        } else if buffer.count + run.count > maxLength {
            discarding = buffer.count + run.count
            buffer.removeAll(keepingCapacity: true)
        } else {
            buffer += run
        }
    }

    /// Refuses a partial line that has seen no byte for `partialTimeout`.
    public mutating func expire(now: Duration) -> ScanEvent? {
        guard hasPartialLine, let last = lastByteAt, now - last >= partialTimeout else { return nil }
        let refusal: ScanRefusal = discarding > 0 ? .tooLong(bytes: discarding) : .incomplete(bytes: buffer.count)
        buffer.removeAll(keepingCapacity: true)
        discarding = 0
        lastByteAt = nil
        return .refused(refusal)
    }

    private func isTerminator(_ byte: UInt8) -> Bool {
        switch suffix {
        case .cr: return byte == 0x0D
        case .lf, .crlf: return byte == 0x0A
        case .tab: return byte == 0x09
        }
    }

    private mutating func finishLine() -> ScanEvent? {
        if discarding > 0 {
            let count = discarding
            discarding = 0
            return .refused(.tooLong(bytes: count))
        }
        var line = buffer
        buffer.removeAll(keepingCapacity: true)
        // CRLF: the LF ends the line and its CR goes; an LF-configured port fed CRLF is treated the same.
        if suffix != .cr, line.last == 0x0D { line.removeLast() }
        // Scanners configured for CR often also send LF (or the other way round): ignore empty lines and a
        // stray line end at the start.
        while let first = line.first, first == 0x0A || first == 0x0D { line.removeFirst() }
        guard !line.isEmpty else { return nil }
        return Self.scan(from: line)
    }

    /// Checks a complete line and strips an AIM identifier.
    static func scan(from line: [UInt8]) -> ScanEvent {
        if line.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return .refused(.binary(bytes: line.count)) }
        guard let text = String(validating: line, as: UTF8.self) else { return .refused(.notText(bytes: line.count)) }
        var symbology: String?
        var body = Substring(text)
        if body.count > 3, body.first == "]" {
            let id = body.dropFirst().prefix(2)
            if let code = id.first, code.isASCII, code.isLetter, let modifier = id.last, modifier.isASCII,
                modifier.isNumber || modifier.isLetter
            {
                symbology = String(id)
                body = body.dropFirst(3)
            }
        }
        return .scan(Scan(text: String(body), symbology: symbology))
    }
}
