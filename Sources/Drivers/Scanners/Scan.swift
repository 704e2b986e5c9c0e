/// One complete read from a barcode scanner.
public struct Scan: Sendable, Equatable {
    /// The decoded text, without suffix or AIM prefix.
    public var text: String
    /// The AIM symbology identifier if the scanner sent one (`]Q1` → `Q1`: QR code, model 2).
    public var symbology: String?

    public init(text: String, symbology: String? = nil) {
        self.text = text
        self.symbology = symbology
    }
}

/// Why input from a scanner was not a scan. The reader keeps going after each.
public enum ScanRefusal: Sendable, Equatable, CustomStringConvertible {
    /// More than the limit without a line end (a stuck key, garbage, a huge code).
    case tooLong(bytes: Int)
    /// Not valid UTF-8 text.
    case notText(bytes: Int)
    /// Control or binary bytes inside a scan.
    case binary(bytes: Int)
    /// Part of a line, then silence: the scan was cut off.
    case incomplete(bytes: Int)
    /// A key the decoder cannot map (HID), e.g. a function key.
    case unmappedKey(code: UInt16)
    /// The kernel dropped input events (its buffer overflowed while kioskd was busy): keys are missing.
    case eventsDropped

    public var description: String {
        switch self {
        case .tooLong(let n): return "scan refused: \(n) bytes without a line end — check the scanner's suffix setting"
        case .notText(let n): return "scan refused: \(n) bytes that are not UTF-8 text"
        case .binary(let n): return "scan refused: \(n) bytes with control characters"
        case .incomplete(let n): return "scan refused: incomplete (\(n) bytes, then nothing) — scan again"
        case .unmappedKey(let code): return "scan refused: key code \(code) is not part of a barcode"
        case .eventsDropped: return "scan refused: the system lost some of its keys — scan again"
        }
    }
}

public enum ScanEvent: Sendable, Equatable {
    case scan(Scan)
    case refused(ScanRefusal)
}
