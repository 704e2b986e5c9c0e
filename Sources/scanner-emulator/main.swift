import ArgumentParser
import DeviceEmulators
import Foundation
import Glibc

/// `scanner-emulator`: a USB-HID keyboard-wedge barcode scanner, as a Linux USB HID gadget (`/dev/hidg0`)
/// would be. Each payload is typed as boot keyboard reports on a US layout and ended with Enter.
///
///     scanner-emulator /dev/hidg0 --scan "HTTPS://CLUP.EXAMPLE/T/…"   # one scan
///     scanner-emulator /dev/hidg0 < payloads.txt                       # one scan per line of input
@main
struct ScannerEmulator: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scanner-emulator",
        abstract: "Type barcode payloads into a USB HID keyboard gadget (/dev/hidg0), as a keyboard-wedge scanner."
    )

    @Argument(help: "The HID gadget's device node.")
    var device: String

    @Option(help: "Type this payload and stop (else: one payload per line of standard input).")
    var scan: [String] = []

    @Flag(help: "Type digits and * + - . / on the numeric keypad, as some scanners do.")
    var keypad = false

    @Option(help: "Milliseconds between two reports (a scanner's keyboard speed setting; 0 = as fast as USB goes).")
    var keyDelayMs = 0

    func run() throws {
        let fd = open(device, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw ValidationError(
                "\(device): cannot open (\(String(cString: strerror(errno)))) — is the HID gadget bound to a UDC?"
            )
        }
        defer { close(fd) }
        func type(_ payload: String) throws {
            for report in try HIDKeyboardReports.reports(typing: payload, keypad: keypad) {
                if keyDelayMs > 0 { usleep(useconds_t(keyDelayMs * 1000)) }
                let written = report.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                guard written == report.count else {
                    throw ValidationError("\(device): write failed (\(String(cString: strerror(errno))))")
                }
            }
        }
        if !scan.isEmpty {
            for payload in scan { try type(payload) }
            return
        }
        while let line = readLine() { try type(line) }
    }
}
