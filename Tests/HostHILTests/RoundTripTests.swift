import DeviceEmulators
import Drivers
import Foundation
import KioskCore
import KioskStation
import Testing

@testable import Rigs

/// Encode a ticket → a real transport → the emulator on a real kernel interface → PNG → zbarimg.
@Suite(.serialized) struct RoundTripTests {
    static let cases: [(transport: String, qr: EscPosEncoder.QRMode)] = [
        ("tcp", .native), ("tcp", .raster), ("serial", .native), ("serial", .raster), ("file", .native),
    ]

    @Test(
        .enabled(if: HIL.needs("zbarimg"), "zbarimg not installed (apt-get install zbar-tools; make test does it)"),
        arguments: 0..<cases.count
    )
    func ticketQRDecodesToTheExactPayload(_ index: Int) throws {
        let (transport, qrMode) = Self.cases[index]
        let rig = try EmulatorRig(profile: "custom-vkp80iii")
        defer { rig.stop() }
        let payload =
            "HTTPS://CLUP.EXAMPLE/T/\(transport.uppercased())\(qrMode.rawValue.uppercased())"
            + String(repeating: "7Q:$", count: 18)
        let address: String
        switch transport {
        case "tcp": address = rig.tcpAddress
        case "serial": address = rig.serialAddress
        default: address = "file://\(rig.pty.slavePath)"  // any character device, as usblp nodes are
        }
        let device = PrinterDevice(
            transport: try PrinterAddress(parsing: address).makeTransport(),
            profile: rig.profile
        )
        try device.open()
        defer { device.close() }
        let bytes = try EscPosEncoder(profile: rig.profile, qrMode: qrMode).encode(
            TestTicket.document(payload: payload)
        )
        try device.send(bytes)
        let tickets = try #require(rig.emulator.waitForTickets(count: 1, timeout: .seconds(10)))
        let ticket = tickets[0]
        #expect(ticket.bytes == bytes)
        #expect(ticket.text.contains("A042"))
        let png = try #require(ticket.pngPath)
        #expect(try HIL.decodeQR(png: png) == [payload])
        // The presenter now holds the ticket, and the printer says so over the same transport.
        if transport != "file" {
            #expect(try device.queryStatus()[.ticketPresent])
        }
    }

    @Test func serialPortSettingsAreAppliedAndRestored() throws {
        let rig = try EmulatorRig(profile: "generic-58mm")
        defer { rig.stop() }
        func currentTermios() throws -> termios {
            let fd = open(rig.pty.slavePath, O_RDWR | O_NOCTTY)
            try #require(fd >= 0)
            defer { close(fd) }
            var t = termios()
            tcgetattr(fd, &t)
            return t
        }
        let before = try currentTermios()
        let transport = SerialTransport(path: rig.pty.path, settings: SerialSettings(baud: 9600, flowControl: .xonXoff))
        try transport.open()
        var during = try currentTermios()
        #expect(cfgetospeed(&during) == speed_t(B9600))
        #expect(during.c_iflag & tcflag_t(IXON) != 0)
        #expect(during.c_cflag & tcflag_t(CSIZE) == tcflag_t(CS8))
        #expect(during.c_cflag & tcflag_t(PARENB) == 0)
        transport.close()
        var after = try currentTermios()
        var original = before
        #expect(cfgetospeed(&after) == cfgetospeed(&original))
        #expect(after.c_iflag == before.c_iflag && after.c_cflag == before.c_cflag)
    }
}
