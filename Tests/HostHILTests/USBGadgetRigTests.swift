import Foundation
import Testing

/// The USB gadget rig (Tests/hil-vm): boots Debian's own kernel in qemu over this machine's filesystem,
/// makes a USB printer gadget and a HID scanner gadget on dummy_hcd, and runs Tests/hil-vm/checks.sh there
/// with this build — libusb, usblp detaching, evdev and the udev rules against a real kernel. The guest's
/// results come back over a shared folder; a guest that hangs is killed and reported with its console.
///
/// Not yet part of `make test`: `make hil` runs it (CLUP_HIL_VM=1). See README, "USB gadget rig".
@Suite(.serialized) struct USBGadgetRigTests {
    static var runnable: Bool { ProcessInfo.processInfo.environment["CLUP_HIL_VM"] == "1" }

    @Test(.enabled(if: runnable, "the USB gadget rig runs with make hil (root, qemu; not yet part of make test)"))
    func theKioskWorksWithRealUSBDevicesInAVirtualMachine() throws {
        try #require(HIL.isRoot, "the rig's guest runs as root on this machine's filesystem")
        let out = HIL.temporaryDirectory("hil-vm")
        let run = try HIL.run("\(HIL.packageRoot)/Tests/hil-vm/run.sh", [out, "280"])
        let read = { (name: String) in (try? String(contentsOfFile: "\(out)/\(name)", encoding: .utf8)) ?? "" }
        let results = read("results.txt")
        let diagnosis = """
            rig exit \(run.status); host: \(read("host.txt"))
            results:
            \(results)
            guest log (end): \(read("guest.log").suffix(3000))
            console (end): \(read("console.log").suffix(2000))
            \(run.error.suffix(1000))
            """
        print("USB gadget rig: \(read("host.txt").replacingOccurrences(of: "\n", with: ", "))")
        for line in results.split(separator: "\n") { print("  \(line)") }
        #expect(run.status == 0, "\(diagnosis)")
        for check in [
            "devices", "udev-rules", "usblp-bound", "usb-print", "tear-off", "evdev-scan", "scanner-replug", "replug",
            "kioskd-stops",
        ] {
            #expect(results.contains("ok \(check) "), "check \(check):\n\(diagnosis)")
        }
        try? FileManager.default.removeItem(atPath: out)
    }
}
