import Foundation
import Testing

@testable import Rigs

/// The USB gadget rig (Tests/hil-vm): boots Debian's own kernel in qemu over this machine's filesystem,
/// makes a USB printer gadget and a HID scanner gadget on dummy_hcd, and runs Tests/hil-vm/checks.sh there
/// with this build — libusb, usblp detaching, evdev and the udev rules against a real kernel. The guest's
/// results come back over a shared folder; a guest that hangs is killed and reported with its console.
///
/// Part of `make test` (about two and a half minutes under software emulation); `make hil` runs it alone. It runs wherever
/// qemu can boot Debian's amd64 kernel, as root (the guest's root filesystem is this machine's, read through
/// qemu). A plain `swift test` without qemu, or `CLUP_HIL_VM=0`, skips it and says why.
@Suite(.serialized) struct USBGadgetRigTests {
    static var skipReason: String? {
        let environment = ProcessInfo.processInfo.environment
        if environment["CLUP_HIL_VM"] == "0" { return "the USB gadget rig is turned off (CLUP_HIL_VM=0)" }
        #if !arch(x86_64)
        return "the USB gadget rig boots Debian's amd64 kernel: it needs an x86_64 machine"
        #else
        if HIL.strict || environment["CLUP_HIL_VM"] == "1" { return nil }
        if HIL.which("qemu-system-x86_64") == nil {
            return "the USB gadget rig needs qemu-system-x86_64 (make test and make hil install it)"
        }
        return HIL.isRoot ? nil : "the USB gadget rig runs as root (its guest's root is this machine's)"
        #endif
    }

    @Test(.enabled(if: skipReason == nil, Comment(rawValue: skipReason ?? "")))
    func theKioskWorksWithRealUSBDevicesInAVirtualMachine() throws {
        try #require(HIL.isRoot, "the rig's guest needs root here (its root filesystem is this machine's): run as root")
        let out = HIL.temporaryDirectory("hil-vm")
        let run = try HIL.run("\(HIL.packageRoot)/Tests/hil-vm/run.sh", [out, "600"])
        let read = { (name: String) in (try? String(contentsOfFile: "\(out)/\(name)", encoding: .utf8)) ?? "" }
        let results = read("results.txt")
        let diagnosis = """
            rig exit \(run.status); host: \(read("host.txt"))
            results:
            \(results)
            guest log (end): \(read("guest.log").suffix(3000))
            kioskd log (end): \(read("kioskd.log").suffix(2000))
            kioskd's crash, if it crashed (the thread that did): \(Self.crashReport(read("kioskd.log")))
            console (end): \(read("console.log").suffix(2000))
            \(run.error.suffix(1000))
            """
        print("USB gadget rig: \(read("host.txt").replacingOccurrences(of: "\n", with: ", "))")
        for line in results.split(separator: "\n") { print("  \(line)") }
        #expect(run.status == 0, "\(diagnosis)")
        for check in [
            "devices", "udev-rules", "usblp-bound", "usb-print", "tear-off", "evdev-scan", "scanner-replug", "replug",
            "replug-taken", "gpio", "voice", "kioskd-stops",
        ] {
            #expect(results.contains("ok \(check) "), "check \(check):\n\(diagnosis)")
        }
        try listenToTheVoice(out)
        try? FileManager.default.removeItem(atPath: out)
    }

    /// The ten calls the guest recorded from the loopback sound card, heard by pocketsphinx on this machine:
    /// at least 9 named the ticket taken.
    func listenToTheVoice(_ out: String) throws {
        let missing = Listener.tools.filter { !HIL.needs($0) }
        try #require(missing.isEmpty, "listening needs \(missing) (make test installs pocketsphinx and sox)")
        let codes = try String(contentsOfFile: "\(out)/voice-codes.txt", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let heard = try Listener.heard("\(out)/voice.raw", rawRate: 22050)
        let right = Listener.callsHeard(codes, in: heard)
        print("USB gadget rig: voice: \(right)/\(codes.count) calls heard right through snd-aloop")
        for stretch in heard { print("  heard: \(stretch)") }
        #expect(codes.count == 10 && right >= 9, "codes \(codes); heard: \(heard.joined(separator: " | "))")
    }

    /// The Swift runtime's crash report in a log, cut to what the log's end (the other threads, registers,
    /// images) does not show: its message and the frames of the thread that crashed (`Thread N … crashed:`,
    /// wherever it stands among the others); empty without one.
    static func crashReport(_ log: String) -> String {
        guard let start = log.range(of: "*** ") else { return "" }
        let report = log[start.lowerBound...]
        let message = report.range(of: "\nThread ").map { report[..<$0.lowerBound] } ?? report.prefix(2000)
        guard let crashed = report.range(of: " crashed:\n") else { return String(message) }
        let thread = report[..<crashed.lowerBound].lastIndex(of: "\n") ?? crashed.lowerBound
        return String(message) + String(report[thread...].prefix(4000))
    }

    /// A guest that never finishes is powered off by its watchdog and reported as a failure with its console,
    /// never as a pass (the host's timeout kills qemu itself if even that fails).
    @Test(.enabled(if: skipReason == nil, Comment(rawValue: skipReason ?? "")))
    func aHungGuestIsAFailure() throws {
        try #require(HIL.isRoot, "the rig's guest needs root here (its root filesystem is this machine's): run as root")
        let out = HIL.temporaryDirectory("hil-vm-hang")
        let run = try HIL.run(
            "\(HIL.packageRoot)/Tests/hil-vm/run.sh",
            [out, "25"],
            environment: ["HIL_SCRIPT": "\(HIL.packageRoot)/Tests/hil-vm/hang.sh"]
        )
        let console = (try? String(contentsOfFile: "\(out)/console.log", encoding: .utf8)) ?? ""
        #expect(run.status != 0, "a hung guest must fail the rig")
        #expect(console.contains("hanging on purpose"), "the console shows what the guest did: \(console.suffix(1500))")
        #expect(console.contains("GUEST WATCHDOG") || console.contains("rig timeout"), "\(console.suffix(1500))")
        #expect(!FileManager.default.fileExists(atPath: "\(out)/status"))
        try? FileManager.default.removeItem(atPath: out)
    }
}
