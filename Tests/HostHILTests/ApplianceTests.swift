import Foundation
import KioskCore
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
        // The scanner's emulator, linked as the package's programs are (make test puts it beside the package).
        let scanner = (deb as NSString).deletingLastPathComponent + "/scanner-emulator"
        try #require(FileManager.default.isExecutableFile(atPath: scanner), "no \(scanner): make test builds it")
        let run = try HIL.run(
            "\(HIL.packageRoot)/Tests/appliance/run.sh",
            [out, "\(HIL.packageRoot)/Tests/appliance/devices.sh", deb, "1200", scanner]
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
            "apt-install", "gpio-rule", "udev-group", "unit-started", "unit-clean", "usb-print", "tear-off",
            "scanner-missing", "hid-scan", "scanner-replug", "printer-unplugged", "gpio", "exit-beam", "voice",
            "watchdog", "security",
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

    /// An upgrade in place with tickets flowing (Tests/appliance/upgrade.sh): `apt-get install` of the same tree
    /// packaged with a higher version restarts kioskd once, keeps the installer's edit of kioskd.toml (a
    /// conffile), prints no code twice and goes on numbering the day; the longest time no ticket could be
    /// taken is measured. `apt-get purge` then removes what the package made.
    @Test(.enabled(if: skipReason == nil, Comment(rawValue: skipReason ?? "")))
    func anUpgradeInPlaceKeepsTheDay() throws {
        let deb = try #require(ProcessInfo.processInfo.environment["CLUP_TEST_DEB"], "CLUP_TEST_DEB is not set")
        try #require(HIL.isRoot, "the appliance image is made with debootstrap and chroot: run as root")
        let out = HIL.temporaryDirectory("appliance-upgrade")
        let made = HIL.temporaryDirectory("appliance-next")
        defer { try? FileManager.default.removeItem(atPath: made) }
        let next = try HIL.run("\(HIL.packageRoot)/Tests/appliance/next-version.sh", [deb, made])
        try #require(next.status == 0, "\(next.error)")
        let run = try HIL.run(
            "\(HIL.packageRoot)/Tests/appliance/run.sh",
            [out, "\(HIL.packageRoot)/Tests/appliance/upgrade.sh", deb, "1200", "\(made)/clup-kiosk-next.deb"]
        )
        let read = { (name: String) in (try? String(contentsOfFile: "\(out)/\(name)", encoding: .utf8)) ?? "" }
        let results = read("results.txt")
        let diagnosis = """
            run exit \(run.status); results:
            \(results)
            apt: \(read("apt-next.log").suffix(1500))
            journal (end): \(read("journal.txt").suffix(3000))
            """
        for line in results.split(separator: "\n") { print("  \(line)") }
        #expect(run.status == 0, "\(diagnosis)")
        for check in [
            "apt-install", "started", "flash-wear", "upgrade-installed", "restarted-once", "conffile-kept",
            "purge",
        ] {
            #expect(results.contains("ok \(check) "), "check \(check):\n\(diagnosis)")
        }
        print("Flash wear: \(read("flash.txt"))")
        // The paper: every code printed once, the day's numbers going on across the upgrade.
        let codes = Self.codes(in: read("emulator.log"))
        #expect(codes.count >= 20, "too few tickets to mean anything: \(codes.count)")
        #expect(Set(codes).count == codes.count, "codes printed twice: \(codes)")
        let numbers = codes.compactMap { Int($0.dropFirst()) }
        #expect(numbers == Array(1...max(numbers.count, 1)), "numbers skipped or repeated: \(numbers)")
        // How long no ticket could be taken: the longest gap between cuts while customers kept coming.
        let cuts = read("cuts.txt").split(separator: "\n").compactMap { line -> Int64? in
            let fields = line.split(separator: " ")
            return fields.count == 3 ? Int64(fields[2]) : nil
        }
        let distinct = Array(Set(cuts)).sorted()
        let gaps = zip(distinct.dropFirst(), distinct).map { $0 - $1 }
        let longest = gaps.max() ?? 0
        print(String(format: "Upgrade in place: no ticket could be taken for at most %.1f s", Double(longest) / 1000))
        #expect(longest > 0 && longest < 60_000, "longest gap between cuts: \(longest) ms")
        try? FileManager.default.removeItem(atPath: out)
    }

    /// The ticket codes in the emulator's text previews (`ticket N: …` then `  | line` each), in print order:
    /// each ticket's first line that is a code.
    static func codes(in log: String) -> [String] {
        log.components(separatedBy: "\nticket ").dropFirst().compactMap { block in
            block.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("  | ") else { return nil }
                let text = line.dropFirst(4).trimmingCharacters(in: .whitespaces)
                return TicketCode(text) != nil ? text : nil
            }.first
        }
    }
}
