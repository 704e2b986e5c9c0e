import DeviceEmulators
import Drivers
import Testing

@testable import Rigs

/// The emulator prints correctly what another client sends: python-escpos text, native QR and an image.
@Suite(.serialized) struct PythonEscposTests {
    @Test(
        .enabled(
            if: HIL.strict || (HIL.python != nil && HIL.which("zbarimg") != nil),
            "python-escpos or zbarimg missing: run make test (it makes .venv-test and installs zbar-tools)"
        )
    )
    func pythonEscposTicketRendersAndItsQRDecodes() throws {
        let python = try #require(HIL.python, "no Python with python-escpos: make test creates .venv-test")
        let rig = try EmulatorRig(profile: "epson-tm-t88")
        defer { rig.stop() }
        let payload = "HTTPS://CLUP.EXAMPLE/T/PYTHON-ESCPOS-0042"
        let result = try HIL.run(
            python,
            ["\(HIL.packageRoot)/Scripts/escpos_client.py", "sample", "127.0.0.1", String(rig.tcp.port), payload]
        )
        try #require(result.status == 0, "python-escpos failed: \(result.error)")
        let ticket = try #require(rig.emulator.waitForTickets(count: 1, timeout: .seconds(10))?.first)
        #expect(ticket.text.contains("PYTHON ESCPOS"))
        #expect(ticket.text.contains("plain text line"))
        #expect(ticket.text.contains("after image"))
        #expect(try HIL.decodeQR(png: try #require(ticket.pngPath)) == [payload])
        // The 80×32 black rectangle of the 96×48 test image, drawn by GS v 0.
        #expect(ticket.image.blackPixelCount > 80 * 32)
    }
}
