import Testing

@testable import DeviceEmulators

/// A keyboard-wedge scanner's reports, from the HID Usage Tables (Keyboard/Keypad page 0x07): one press
/// and one release per character, shift for capitals and symbols, the keypad when asked, Enter at the end.
struct HIDKeyboardReportsTests {
    let release: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0]

    @Test func capitalsAndSymbolsAreShiftedAndAScanEndsWithEnter() throws {
        let reports = try HIDKeyboardReports.reports(typing: "Ab1:")
        #expect(
            reports == [
                [0x02, 0, 0x04, 0, 0, 0, 0, 0], release,  // A: left shift + a
                [0x00, 0, 0x05, 0, 0, 0, 0, 0], release,  // b
                [0x00, 0, 0x1E, 0, 0, 0, 0, 0], release,  // 1
                [0x02, 0, 0x33, 0, 0, 0, 0, 0], release,  // ':' is shift + ';'
                [0x00, 0, 0x28, 0, 0, 0, 0, 0], release,  // Enter
            ]
        )
    }

    @Test func theKeypadTypesDigitsAndArithmetic() throws {
        let reports = try HIDKeyboardReports.reports(typing: "0*+-./9", keypad: true)
        #expect(
            reports.enumerated().filter { $0.offset % 2 == 0 }.map { $0.element[2] } == [
                0x62, 0x55, 0x57, 0x56, 0x63, 0x54, 0x61, 0x28,
            ]
        )
        #expect(reports.allSatisfy { $0[0] == 0 })
    }

    @Test func aCharacterNoUSKeyboardHasIsRefused() {
        #expect(throws: HIDKeyboardReports.Failure.self) { try HIDKeyboardReports.reports(typing: "€") }
    }
}
