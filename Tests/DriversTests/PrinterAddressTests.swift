import Testing

@testable import Drivers

@Suite struct PrinterAddressTests {
    @Test func everySchemeParses() throws {
        #expect(try PrinterAddress(parsing: "usb://04b8:0202") == .usb(USBMatch(vendor: 0x04B8, product: 0x0202)))
        #expect(
            try PrinterAddress(parsing: "usb://04b8:0202?serial=ABC")
                == .usb(USBMatch(vendor: 0x04B8, product: 0x0202, serial: "ABC"))
        )
        #expect(try PrinterAddress(parsing: "usb://") == .usb(USBMatch()))
        #expect(try PrinterAddress(parsing: "cups://Tickets") == .cups(queue: "Tickets", server: nil))
        #expect(
            try PrinterAddress(parsing: "cups://Q?server=/run/cups/cups.sock")
                == .cups(queue: "Q", server: "/run/cups/cups.sock")
        )
        #expect(
            try PrinterAddress(parsing: "serial:///dev/ttyUSB0?baud=19200&flow=xon-xoff")
                == .serial(path: "/dev/ttyUSB0", settings: SerialSettings(baud: 19200, flowControl: .xonXoff))
        )
        #expect(try PrinterAddress(parsing: "tcp://10.0.0.7:9100") == .tcp(host: "10.0.0.7", port: 9100))
        #expect(try PrinterAddress(parsing: "tcp://printer.local") == .tcp(host: "printer.local", port: 9100))
        #expect(try PrinterAddress(parsing: "tcp://[::1]:9101") == .tcp(host: "::1", port: 9101))
        #expect(try PrinterAddress(parsing: "file:///dev/usb/lp0") == .usblp(path: "/dev/usb/lp0"))
    }

    @Test func serialTakesTheProfileDefaults() throws {
        var defaults = PrinterProfile.TransportDefaults()
        defaults.baud = 115200
        defaults.flowControl = .none
        #expect(
            try PrinterAddress(parsing: "serial:///dev/ttyS0", defaults: defaults)
                == .serial(path: "/dev/ttyS0", settings: SerialSettings(baud: 115200, flowControl: .none))
        )
    }

    @Test(arguments: [
        "printer", "lpt://x", "usb://4b8", "usb://zz:0202", "serial://ttyUSB0", "serial:///dev/ttyS0?baud=12345",
        "serial:///dev/ttyS0?flow=maybe", "serial:///dev/ttyS0?parity=odd", "tcp://:9100", "tcp://h:99999",
        "cups://", "cups://a/b", "file://relative", "tcp://h:9100?x=",
    ])
    func badAddressesAreRefusedWithTheForms(_ text: String) {
        do {
            _ = try PrinterAddress(parsing: text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.code == .invalidAddress)
            #expect(error.message.contains("tcp://HOST:9100"))
        }
    }

    @Test func anAbsentUSBPrinterIsNotFoundWithAHint() {
        let transport = USBTransport(match: USBMatch(vendor: 0xFFFF, product: 0xFFFE))
        do {
            try transport.open()
            Issue.record("opened a USB printer that does not exist")
        } catch {
            #expect(error.code == .notFound)
            #expect(error.description.contains("usb://ffff:fffe"))
            #expect(error.message.contains("kioskd devices"))
        }
    }

    @Test func aMissingDeviceNodeSaysSo() {
        do {
            try UsblpTransport(path: "/dev/usb/lp97").open()
            Issue.record("opened a usblp node that does not exist")
        } catch {
            #expect(error.code == .notFound)
        }
        do {
            try SerialTransport(path: "/dev/null", settings: SerialSettings()).open()
            Issue.record("treated /dev/null as a serial port")
        } catch {
            #expect(error.code == .invalidAddress)
        }
    }

    @Test func tcpConnectRefusedIsReported() {
        // Port 1 on loopback: nothing listens there.
        do {
            try TCPTransport(host: "127.0.0.1", port: 1, connectTimeout: .seconds(1)).open()
            Issue.record("connected to a closed port")
        } catch {
            #expect(error.code == .notFound)
            #expect(error.message.contains("refused"))
        }
    }

    @Test func cupsStateReasonsMapToConditions() {
        let status = CUPSTransport.status(state: 5, accepting: true, reasons: ["media-empty-error", "cover-open"])
        #expect(status[.offline] && status[.paperEnd] && status[.coverOpen] && !status[.paperNearEnd])
        #expect(CUPSTransport.status(state: 3, accepting: true, reasons: ["none"]).active.isEmpty)
        #expect(CUPSTransport.status(state: 3, accepting: true, reasons: ["media-low-report"])[.paperNearEnd])
    }
}
