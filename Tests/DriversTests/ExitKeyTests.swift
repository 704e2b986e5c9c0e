import Testing

@testable import Drivers

@Suite struct ExitKeyTests {
    @Test func namesAndNumbersParse() {
        #expect(ExitKey("any") == .any)
        #expect(ExitKey("KEY_F13") == .code(183))
        #expect(ExitKey("key_f24") == .code(194))
        #expect(ExitKey("KEY_F12") == .code(88))
        #expect(ExitKey("KEY_B") == .code(48))
        #expect(ExitKey("KEY_0") == .code(11))
        #expect(ExitKey("BTN_0") == .code(0x100))
        #expect(ExitKey("183") == .code(183))
        #expect(ExitKey("KEY_F13")?.description == "KEY_F13")
        #expect(ExitKey("KEY_NOPE") == nil)
        #expect(ExitKey("0") == nil)
        #expect(ExitKey("70000") == nil)
    }

    /// A foot switch sends press, auto-repeat while held, release: one exit per press.
    @Test func onePressIsOneExit() {
        let key = ExitKey.code(183)
        let held: [EvdevInput.Event] = [
            .init(type: 4, code: 4, value: 0x70068),  // EV_MSC MSC_SCAN
            .init(type: 1, code: 183, value: 1),
            .init(type: 0, code: 0, value: 0),
            .init(type: 1, code: 183, value: 2),
            .init(type: 1, code: 183, value: 2),
            .init(type: 1, code: 183, value: 0),
            .init(type: 1, code: 48, value: 1),  // another key
            .init(type: 1, code: 183, value: 1),
            .init(type: 1, code: 183, value: 0),
        ]
        #expect(held.filter(key.isExit).count == 2)
        #expect(held.filter(ExitKey.any.isExit).count == 3)
    }

    /// `struct input_event` bytes as the kernel delivers them, split across reads at odd places.
    @Test func inputEventsParseAcrossPartialReads() {
        func raw(_ type: UInt16, _ code: UInt16, _ value: Int32) -> [UInt8] {
            var bytes = [UInt8](repeating: 0xAB, count: 16)  // timeval: ignored
            bytes += [UInt8(type & 0xFF), UInt8(type >> 8), UInt8(code & 0xFF), UInt8(code >> 8)]
            let v = UInt32(bitPattern: value)
            bytes += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
            return bytes
        }
        let stream = raw(1, 183, 1) + raw(0, 0, 0) + raw(1, 0x100, 0) + raw(3, 1, -5)
        var pending = Array(stream.prefix(30))
        var events = EvdevInput.parse(&pending)
        #expect(events == [.init(type: 1, code: 183, value: 1)])
        #expect(pending.count == 6)
        pending += stream.dropFirst(30)
        events = EvdevInput.parse(&pending)
        #expect(
            events == [
                .init(type: 0, code: 0, value: 0), .init(type: 1, code: 0x100, value: 0),
                .init(type: 3, code: 1, value: -5),
            ]
        )
        #expect(pending.isEmpty)
    }
}
