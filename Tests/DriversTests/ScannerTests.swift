import CLinuxShims
import Foundation
import TestSupport
import Testing

@testable import Drivers

@Suite struct ScanFramerTests {
    func frame(_ input: String, suffix: ScanFramer.Suffix) -> [ScanEvent] {
        var framer = ScanFramer(suffix: suffix)
        return framer.feed(Array(input.utf8), now: .zero)
    }

    @Test(arguments: [
        (ScanFramer.Suffix.cr, "\r"), (.lf, "\n"), (.crlf, "\r\n"), (.tab, "\t"),
    ])
    func eachSuffixEndsAScan(suffix: ScanFramer.Suffix, end: String) {
        #expect(frame("ABC\(end)DEF\(end)", suffix: suffix) == [.scan(Scan(text: "ABC")), .scan(Scan(text: "DEF"))])
    }

    @Test func aimPrefixIsStrippedAndReported() {
        #expect(frame("]Q1HTTPS://X/T/1\r", suffix: .cr) == [.scan(Scan(text: "HTTPS://X/T/1", symbology: "Q1"))])
        #expect(frame("]d2012345\r", suffix: .cr) == [.scan(Scan(text: "012345", symbology: "d2"))])
        #expect(frame("]X\r", suffix: .cr) == [.scan(Scan(text: "]X"))])  // too short to be an AIM id
    }

    @Test func tolerantOfTheOtherLineEnd() {
        #expect(frame("A\r\nB\r\n", suffix: .cr) == [.scan(Scan(text: "A")), .scan(Scan(text: "B"))])
        #expect(frame("A\r\n", suffix: .lf) == [.scan(Scan(text: "A"))])
    }

    @Test func scansSplitAcrossReads() {
        var framer = ScanFramer(suffix: .crlf)
        #expect(framer.feed(Array("HEL".utf8), now: .zero).isEmpty)
        #expect(framer.feed(Array("LO\r".utf8), now: .zero).isEmpty)
        #expect(framer.feed([0x0A], now: .zero) == [.scan(Scan(text: "HELLO"))])
    }

    @Test func tenMegabytesWithoutALineEndIsOneRefusalThenScanningGoesOn() {
        var framer = ScanFramer(suffix: .cr, maxLength: 4096)
        var events: [ScanEvent] = []
        let chunk = [UInt8](repeating: 0x41, count: 65536)
        for _ in 0..<160 { events += framer.feed(chunk, now: .zero) }  // 10 MiB
        events += framer.feed(Array("\rOK\r".utf8), now: .zero)
        #expect(events == [.refused(.tooLong(bytes: 160 * 65536)), .scan(Scan(text: "OK"))])
    }

    @Test func binaryAndNonUTF8AreRefused() {
        var framer = ScanFramer(suffix: .cr)
        let events = framer.feed([0x41, 0x00, 0x42, 0x0D, 0xC3, 0x28, 0x0D, 0x47, 0x4F, 0x0D], now: .zero)
        #expect(events == [.refused(.binary(bytes: 3)), .refused(.notText(bytes: 2)), .scan(Scan(text: "GO"))])
        #expect(frame("Zürich\r", suffix: .cr) == [.scan(Scan(text: "Zürich"))])
    }

    @Test func aPartialLineTimesOut() {
        var framer = ScanFramer(suffix: .cr, partialTimeout: .milliseconds(500))
        #expect(framer.feed(Array("PART".utf8), now: .seconds(1)).isEmpty)
        #expect(framer.feed([], now: .milliseconds(1300)).isEmpty)  // an empty read is not a byte
        #expect(framer.expire(now: .milliseconds(1400)) == nil)
        #expect(framer.expire(now: .milliseconds(1500)) == .refused(.incomplete(bytes: 4)))
        #expect(framer.feed(Array("NEXT\r".utf8), now: .seconds(2)) == [.scan(Scan(text: "NEXT"))])
    }

    /// Random bytes, in random chunks: never a trap, and every terminated line is either a scan or a refusal.
    @Test func randomInputNeverTraps() {
        var rng = SplitMix64(seed: 7)
        for suffix in ScanFramer.Suffix.allCases {
            var framer = ScanFramer(suffix: suffix, maxLength: 256)
            for step in 0..<20_000 {
                let bytes = (0..<Int(rng.next() % 64)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                for event in framer.feed(bytes, now: .milliseconds(step)) {
                    if case .scan(let scan) = event {
                        #expect(!scan.text.isEmpty && scan.text.utf8.count <= 256)
                        #expect(!scan.text.unicodeScalars.contains { $0.value < 0x20 })
                    }
                }
            }
        }
    }
}

@Suite struct HIDKeyDecoderTests {
    /// Key presses as a keyboard-wedge scanner sends them (evtest order: MSC_SCAN, EV_KEY, SYN_REPORT), for
    /// `text` on a US layout, using the keypad for digits when `keypad` is set.
    static func stream(_ text: String, keypad: Bool = false, capsLock: Bool = false) -> [(UInt16, UInt16, Int32)] {
        var reverse: [Character: (UInt16, Bool)] = [:]
        for (code, pair) in HIDKeyDecoder.usLayout.sorted(by: { $0.key < $1.key }) {
            if reverse[pair.0] == nil { reverse[pair.0] = (code, false) }
            if reverse[pair.1] == nil { reverse[pair.1] = (code, true) }
        }
        if keypad {
            for (digit, code) in zip("7894561230", [71, 72, 73, 75, 76, 77, 79, 80, 81, 82] as [UInt16]) {
                reverse[digit] = (code, false)
            }
        }
        var events: [(UInt16, UInt16, Int32)] = []
        func key(_ code: UInt16, _ value: Int32) {
            events.append((4, 4, Int32(code)))  // EV_MSC MSC_SCAN
            events.append((1, code, value))
            events.append((0, 0, 0))  // SYN_REPORT
        }
        if capsLock {
            key(58, 1)
            key(58, 0)
        }
        for character in text {
            var (code, shifted) = reverse[character]!
            if capsLock, character.isLetter { shifted.toggle() }
            if shifted { key(42, 1) }
            key(code, 1)
            key(code, 0)
            if shifted { key(42, 0) }
        }
        key(keypad ? 96 : 28, 1)
        key(keypad ? 96 : 28, 0)
        return events
    }

    func decode(_ events: [(UInt16, UInt16, Int32)]) -> [ScanEvent] {
        var decoder = HIDKeyDecoder()
        return events.compactMap { decoder.handle(type: $0.0, code: $0.1, value: $0.2) }
    }

    @Test func shiftedTicketCodeDecodesExactly() {
        let payload = "HTTPS://CLUP.EXAMPLE/T/V50D5J32I52EITBWN7++9BZJ/F5Q:HMR3D90$60R48M-FJ-K4CMV:Q*LVYNDGMB0 %"
        #expect(decode(Self.stream(payload)) == [.scan(Scan(text: payload))])
    }

    @Test func keypadDigitsAndCapsLock() {
        #expect(decode(Self.stream("0123456789", keypad: true)) == [.scan(Scan(text: "0123456789"))])
        #expect(decode(Self.stream("Mixed Case 42", capsLock: true)) == [.scan(Scan(text: "Mixed Case 42"))])
    }

    /// The kernel repeats a key whose release comes late (seen in the USB gadget rig under emulation): the
    /// repeats (value 2) are not characters of the scan.
    @Test func autorepeatDoesNotDoubleACharacter() {
        var events = Self.stream("A042")
        let pressOfZero = events.firstIndex { $0.1 == 11 && $0.2 == 1 }!  // KEY_0 pressed
        events.insert(contentsOf: [(1, 11, 2), (1, 11, 2)], at: pressOfZero + 1)
        #expect(decode(events) == [.scan(Scan(text: "A042"))])
    }

    /// SYN_DROPPED in the middle of a scan: keys are missing, so the scan is refused, not guessed at.
    @Test func droppedEventsRefuseTheScan() {
        var events = Self.stream("A042")
        events.insert((0, 3, 0), at: 4)  // EV_SYN SYN_DROPPED
        events += Self.stream("OK")
        #expect(decode(events) == [.refused(.eventsDropped), .scan(Scan(text: "OK"))])
    }

    @Test func aFunctionKeyRefusesItsScanOnly() {
        var events = Self.stream("AB")
        events.insert((1, 59, 1), at: 3)  // KEY_F1 pressed inside the scan
        events += Self.stream("OK")
        #expect(decode(events) == [.refused(.unmappedKey(code: 59)), .scan(Scan(text: "OK"))])
    }

    @Test func overlongScanIsRefused() {
        var decoder = HIDKeyDecoder(maxLength: 10)
        let events = Self.stream(String(repeating: "x", count: 25))
        let out = events.compactMap { decoder.handle(type: $0.0, code: $0.1, value: $0.2) }
        #expect(out == [.refused(.tooLong(bytes: 25))])
    }

    /// A recording in evtest's format, with its header saying what device and what happened.
    @Test func recordedSessionReplays() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Recordings/hid-scan-a042.evtest"
        )
        let text = try String(contentsOf: url, encoding: .utf8)
        var events: [(UInt16, UInt16, Int32)] = []
        for line in text.split(separator: "\n") where line.hasPrefix("Event:") {
            // Event: time 1795327200.000100, type 1 (EV_KEY), code 42 (KEY_LEFTSHIFT), value 1
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count >= 3 else { continue }
            func number(_ field: String, after word: String) -> Int? {
                field.hasPrefix(word) ? Int(field.dropFirst(word.count).split(separator: " ").first ?? "") : nil
            }
            guard let type = number(fields[1], after: "type "), let code = number(fields[2], after: "code "),
                let value = fields.last.flatMap({ number($0, after: "value ") })
            else { continue }
            events.append((UInt16(type), UInt16(code), Int32(value)))
        }
        #expect(events.filter { $0.0 == 1 }.count == 20)  // 7 keys, 2 shifts and Enter, each pressed and released
        #expect(decode(events) == [.scan(Scan(text: "A042", symbology: "Q1"))])
    }
}

/// The serial reader on a real pty: bytes written on the master come out as scans.
@Suite struct SerialScannerReaderTests {
    @Test func scansArriveThroughAPty() throws {
        let master = CLinuxShims_openpt(O_RDWR | O_NOCTTY)
        try #require(master >= 0)
        defer { close(master) }
        var name = [CChar](repeating: 0, count: 128)
        try #require(CLinuxShims_ptsname(master, &name, name.count) == 0)
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let reader = SerialScannerReader(
            path: path,
            framer: ScanFramer(suffix: .crlf, partialTimeout: .milliseconds(200))
        )
        try reader.open()
        defer { reader.close() }
        func send(_ text: String) { _ = Array(text.utf8).withUnsafeBytes { write(master, $0.baseAddress, $0.count) } }
        func collect(_ n: Int) throws -> [ScanEvent] {
            var out: [ScanEvent] = []
            let deadline = ContinuousClock.now + .seconds(5)
            while out.count < n && ContinuousClock.now < deadline {
                out += try reader.read(timeout: .milliseconds(100))
            }
            return out
        }
        send("]Q1HTTPS://CLUP.EXAMPLE/T/AB$%*+-./:\r\nSECOND\r\n")
        #expect(
            try collect(2) == [
                .scan(Scan(text: "HTTPS://CLUP.EXAMPLE/T/AB$%*+-./:", symbology: "Q1")), .scan(Scan(text: "SECOND")),
            ]
        )
        send("CUT OFF")
        #expect(try collect(1) == [.refused(.incomplete(bytes: 7))])
    }

    @Test func scannerFaultsAreTheScannersInItsWords() throws {
        let missing = SerialScannerReader(path: "/dev/clup-no-such-scanner", framer: ScanFramer(suffix: .crlf))
        let error = try #require(throws: ScannerError.self) { try missing.open() }
        #expect(error.code == .notFound)
        #expect(error.message.contains("scanner") && !error.message.contains("printer"))
        for address in ["tcp://10.0.0.7:9100", "evdev://dev/input/event3", "bluetooth://scanner"] {
            let wrong = try #require(throws: ScannerError.self) { try makeScannerReader(address, suffix: .crlf) }
            #expect(wrong.code == .invalidAddress, "\(address)")
        }
        let wedge = EvdevScannerReader(path: "/dev/input/event-none")
        #expect(throws: ScannerError.self) { try wedge.send([0x07]) }
        #expect((try? wedge.open()) == nil)
    }
}
