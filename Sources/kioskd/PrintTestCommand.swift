import ArgumentParser
import Drivers
import KioskStation

/// `kioskd print-test --printer URI`: prints the test ticket (with a QR code) and reports the printer status.
struct PrintTestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "print-test",
        abstract: "Print a test ticket with a QR code on any printer transport.",
        discussion: """
            Printer addresses: usb://04b8:0202  cups://QUEUE  serial:///dev/ttyUSB0?baud=19200
            tcp://192.168.1.50:9100  file:///dev/usb/lp0
            """
    )

    @Option(help: "Printer address (see below).")
    var printer: String

    @Option(help: "Printer profile (\(PrinterProfile.bundledIDs.joined(separator: ", "))).")
    var profile = "generic-80mm"

    @Option(help: "Another directory to look for profile files in.")
    var profileDir: [String] = []

    @Option(help: "QR as native GS ( k, raster image, or auto (from the profile).")
    var qr: EscPosEncoder.QRMode = .auto

    func run() throws {
        let printerProfile = try PrinterProfile.load(named: profile, extraDirectories: profileDir)
        let address = try PrinterAddress(parsing: printer, defaults: printerProfile.transport)
        let bytes = try EscPosEncoder(profile: printerProfile, qrMode: qr).encode(TestTicket.document())
        let device = PrinterDevice(transport: address.makeTransport(), profile: printerProfile)
        try device.open()
        defer { device.close() }
        try device.send(bytes)
        print("sent \(bytes.count) bytes to \(device.transport.address) as \(printerProfile.name)")
        do {
            let status = try device.queryStatus()
            print("printer status: \(status)")
            for fault in status.active where fault != .ticketPresent {
                print("  \(fault.operatorAction)")
            }
        } catch {
            print("printer status: unknown (\(error.message))")
        }
    }
}

extension EscPosEncoder.QRMode: ExpressibleByArgument {}
