/// Turns evdev key events from a keyboard-wedge scanner into scans, as a US keyboard would type them, whatever
/// the system's keyboard layout (the kernel reports key positions, not characters).
///
/// Tracks both shift keys and caps lock; maps the keypad (digits, operators, Enter); a scan ends at Enter or
/// keypad Enter. A key with no character (a function key) refuses the scan it is in. Pure.
public struct HIDKeyDecoder: Sendable {
    /// evdev event types and codes used here (linux/input-event-codes.h).
    public static let evKey: UInt16 = 0x01
    static let evSyn: UInt16 = 0x00
    static let synDropped: UInt16 = 3
    static let keyLeftShift: UInt16 = 42
    static let keyRightShift: UInt16 = 54
    static let keyCapsLock: UInt16 = 58
    static let keyEnter: UInt16 = 28
    static let keyKPEnter: UInt16 = 96

    public let maxLength: Int
    private var shift: Set<UInt16> = []
    private var capsLock = false
    private var line: [Character] = []
    /// Characters beyond `maxLength` in the current scan.
    private var dropped = 0
    private var refusal: ScanRefusal?

    public init(maxLength: Int = 4096) {
        self.maxLength = maxLength
    }

    /// Feeds one input event (type, code, value: 1 press, 0 release, 2 autorepeat).
    public mutating func handle(type: UInt16, code: UInt16, value: Int32) -> ScanEvent? {
        // SYN_DROPPED: the kernel's buffer for this reader overflowed, so the scan in progress lacks keys.
        if type == Self.evSyn && code == Self.synDropped {
            if refusal == nil { refusal = .eventsDropped }
            return nil
        }
        guard type == Self.evKey else { return nil }
        if code == Self.keyLeftShift || code == Self.keyRightShift {
            if value == 0 { shift.remove(code) } else { shift.insert(code) }
            return nil
        }
        // Presses only: a scanner never holds a key on purpose, and the kernel's software autorepeat (value 2)
        // fires when a release arrives late (a busy USB bus, a slow machine) — it would double a character.
        guard value == 1 else { return nil }
        if code == Self.keyCapsLock {
            if value == 1 { capsLock.toggle() }
            return nil
        }
        if code == Self.keyEnter || code == Self.keyKPEnter { return finish() }
        guard let (plain, shifted) = Self.usLayout[code] else {
            if refusal == nil { refusal = .unmappedKey(code: code) }
            return nil
        }
        var character = shift.isEmpty ? plain : shifted
        if capsLock, character.isLetter {
            character = shift.isEmpty ? Character(character.uppercased()) : Character(character.lowercased())
        }
        if line.count >= maxLength {
            dropped += 1
        } else {
            line.append(character)
        }
        return nil
    }

    private mutating func finish() -> ScanEvent? {
        defer {
            line.removeAll(keepingCapacity: true)
            dropped = 0
            refusal = nil
        }
        if dropped > 0 { return .refused(.tooLong(bytes: line.count + dropped)) }
        if let refusal { return .refused(refusal) }
        guard !line.isEmpty else { return nil }
        return ScanFramer.scan(from: Array(String(line).utf8))
    }

    /// Key code → (unshifted, shifted) on a US layout, keypad included.
    static let usLayout: [UInt16: (Character, Character)] = {
        var map: [UInt16: (Character, Character)] = [:]
        let rows: [(UInt16, String, String)] = [
            (2, "1234567890-=", "!@#$%^&*()_+"),
            (16, "qwertyuiop[]", "QWERTYUIOP{}"),
            (30, "asdfghjkl;'`", "ASDFGHJKL:\"~"),
            (43, "\\zxcvbnm,./", "|ZXCVBNM<>?"),
        ]
        for (start, plain, shifted) in rows {
            for (i, (p, s)) in zip(plain, shifted).enumerated() { map[start + UInt16(i)] = (p, s) }
        }
        map[57] = (" ", " ")  // KEY_SPACE
        // Keypad: KEY_KP7 71 … KEY_KPDOT 83, KEY_KPASTERISK 55, KEY_KPSLASH 98 (same with or without shift).
        let keypad: [(UInt16, Character)] = [
            (71, "7"), (72, "8"), (73, "9"), (74, "-"), (75, "4"), (76, "5"), (77, "6"), (78, "+"), (79, "1"),
            (80, "2"),
            (81, "3"), (82, "0"), (83, "."), (55, "*"), (98, "/"),
        ]
        for (code, c) in keypad { map[code] = (c, c) }
        return map
    }()
}
