import ArgumentParser
import Drivers

/// `kioskd devices`: what printers and scanners this machine can see, with the address to configure.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List printers (USB, usblp, CUPS) and scanners found on this machine."
    )

    @Option(help: "Another directory with printer profiles to match USB IDs against.")
    var profileDir: [String] = []

    func run() throws {
        let profiles = PrinterProfile.bundledIDs.compactMap {
            try? PrinterProfile.load(named: $0, extraDirectories: profileDir)
        }
        let (devices, notes) = DeviceDiscovery.scan(profiles: profiles)
        let printers = devices.filter { [.usbPrinter, .usblp, .cups].contains($0.kind) }
        let scanners = devices.filter { [.serialPort, .hidKeyboard].contains($0.kind) }
        print("Printers:")
        if printers.isEmpty { print("  none found") }
        for device in printers {
            let profile = device.profileID.map { "  (profile \($0))" } ?? ""
            print("  \(device.address)  \(device.summary)\(profile)")
        }
        print("Scanners:")
        if scanners.isEmpty { print("  none found") }
        for device in scanners {
            print("  \(device.address)  \(device.summary)")
        }
        for note in notes {
            print("note: \(note)")
        }
    }
}
