import Foundation
import Testing

@testable import Rigs

/// The kiosk as it ships (Tests/appliance): a Debian 12 guest that boots for real — its own ext4 disk served
/// with `cache=none`, Debian's kernel, systemd as PID 1 — where apt installs the clup-kiosk package under test
/// and the shipped unit alone starts kioskd. Every device kind is checked under that unit: a USB printer gadget
/// with the packaged emulator behind it, gpio-sim lines for the light, gate and exit beams, snd-aloop for the
/// voice (heard here by pocketsphinx); and `systemd-analyze security` scores the unit.
///
/// The image is made once per clone under `.build-hil/appliance` (debootstrap, about a minute with a near
/// mirror); a boot takes about 25 s under software emulation, the whole check about two minutes. Needs root,
/// qemu and debootstrap, and the package in CLUP_TEST_DEB (make test gives all four).
@Suite(.serialized) struct ApplianceTests {
    static var skipReason: String? {
        if let reason = USBGadgetRigTests.skipReason { return reason }
        if HIL.strict { return nil }
        if ProcessInfo.processInfo.environment["CLUP_TEST_DEB"] == nil {
            return "the appliance guest installs the package named by CLUP_TEST_DEB (make test builds it)"
        }
        return HIL.which("debootstrap") == nil
            ? "the appliance image is made by debootstrap (make test installs it)" : nil
    }

    @Test(.enabled(if: skipReason == nil, Comment(rawValue: skipReason ?? "")))
    func everyDeviceKindWorksUnderTheShippedUnit() throws {
        let deb = try #require(ProcessInfo.processInfo.environment["CLUP_TEST_DEB"], "CLUP_TEST_DEB is not set")
        try #require(HIL.isRoot, "the appliance image is made with debootstrap and chroot: run as root")
        let out = HIL.temporaryDirectory("appliance")
        let run = try HIL.run(
            "\(HIL.packageRoot)/Tests/appliance/run.sh",
            [out, "\(HIL.packageRoot)/Tests/appliance/devices.sh", deb, "600"]
        )
        let read = { (name: String) in (try? String(contentsOfFile: "\(out)/\(name)", encoding: .utf8)) ?? "" }
        let results = read("results.txt")
        let diagnosis = """
            run exit \(run.status); host: \(read("host.txt"))
            results:
            \(results)
            kioskd's journal (end): \(read("kioskd.log").suffix(2000))
            apt: \(read("apt.log").suffix(1000))
            console (end): \(read("console-1.log").suffix(3000))
            \(run.error.suffix(1000))
            """
        print("Appliance guest: \(read("host.txt").replacingOccurrences(of: "\n", with: ", "))")
        for line in results.split(separator: "\n") { print("  \(line)") }
        #expect(run.status == 0, "\(diagnosis)")
        for check in [
            "apt-install", "unit-started", "unit-clean", "usb-print", "tear-off", "gpio", "voice", "watchdog",
            "security",
        ] {
            #expect(results.contains("ok \(check) "), "check \(check):\n\(diagnosis)")
        }
        // The call said under the unit, heard on this machine.
        let missing = Listener.tools.filter { !HIL.needs($0) }
        try #require(missing.isEmpty, "listening needs \(missing) (make test installs pocketsphinx and sox)")
        let codes = read("voice-codes.txt").split(separator: "\n").map(String.init)
        let heard = try Listener.heard("\(out)/voice.raw", rawRate: 22050)
        #expect(codes.count == 1 && Listener.callsHeard(codes, in: heard) == 1, "\(codes); heard: \(heard)")
        try? FileManager.default.removeItem(atPath: out)
    }
}
