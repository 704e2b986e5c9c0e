import CLibUSB

/// Small helpers over libusb: error text and descriptors read into Swift values.
enum LibUSB {
    static func name(_ code: CInt) -> String {
        String(cString: libusb_error_name(code))
    }

    /// Maps a libusb error to what the operator should do.
    static func error(_ code: CInt, device: String, during operation: String) -> PrinterError {
        let detail = TextError("\(operation): \(name(code))")
        switch libusb_error(code) {
        case LIBUSB_ERROR_ACCESS:
            return PrinterError(
                .accessDenied,
                device: device,
                "access denied — install udev/70-clup-kiosk.rules so the kiosk user may open USB printers, then replug",
                cause: detail
            )
        case LIBUSB_ERROR_BUSY:
            return PrinterError(
                .busy,
                device: device,
                "busy — another program (or the usblp driver that could not be detached) holds the printer; stop it "
                    + "or use file:///dev/usb/lp0 instead",
                cause: detail
            )
        case LIBUSB_ERROR_NO_DEVICE:
            return PrinterError(
                .disconnected,
                device: device,
                "the printer was unplugged — plug it back in",
                cause: detail
            )
        case LIBUSB_ERROR_NOT_FOUND:
            return PrinterError(
                .notFound,
                device: device,
                "no such USB printer — check the cable and `kioskd devices`",
                cause: detail
            )
        case LIBUSB_ERROR_TIMEOUT:
            return PrinterError(
                .timeout,
                device: device,
                "the printer did not take the data in time — is it out of paper or paused?",
                cause: detail
            )
        case LIBUSB_ERROR_PIPE:
            return PrinterError(
                .io,
                device: device,
                "the printer stalled the transfer — it is in an error state",
                cause: detail
            )
        default:
            return PrinterError(
                .io,
                device: device,
                "USB \(operation) failed — check the cable (kioskd reconnects by itself)",
                cause: detail
            )
        }
    }

    static func string(_ handle: OpaquePointer?, index: UInt8) -> String? {
        guard let handle, index != 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = libusb_get_string_descriptor_ascii(handle, index, &buffer, CInt(buffer.count))
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<Int(n)], as: UTF8.self)
    }

    /// The printer interface of a configuration and its bulk endpoints.
    struct PrinterInterface {
        var number: UInt8
        var alternate: UInt8
        var bulkOut: UInt8
        var bulkIn: UInt8?
        var isPrinterClass: Bool
    }

    /// Finds the interface to print to: a printer-class (7) interface if there is one, else (for vendor-class
    /// printers matched by VID/PID) the first interface with a bulk OUT endpoint. Endpoint addresses come from
    /// the descriptors because they differ between models.
    static func printerInterface(_ config: UnsafePointer<libusb_config_descriptor>) -> PrinterInterface? {
        var fallback: PrinterInterface?
        for i in 0..<Int(config.pointee.bNumInterfaces) {
            let interface = config.pointee.interface[i]
            for a in 0..<Int(interface.num_altsetting) {
                let alt = interface.altsetting[a]
                var out: UInt8?
                var inn: UInt8?
                for e in 0..<Int(alt.bNumEndpoints) {
                    let ep = alt.endpoint[e]
                    guard ep.bmAttributes & 0x03 == UInt8(LIBUSB_TRANSFER_TYPE_BULK.rawValue) else { continue }
                    if ep.bEndpointAddress & 0x80 != 0 {
                        inn = inn ?? ep.bEndpointAddress
                    } else {
                        out = out ?? ep.bEndpointAddress
                    }
                }
                guard let out else { continue }
                let found = PrinterInterface(
                    number: alt.bInterfaceNumber,
                    alternate: alt.bAlternateSetting,
                    bulkOut: out,
                    bulkIn: inn,
                    isPrinterClass: alt.bInterfaceClass == UInt8(LIBUSB_CLASS_PRINTER.rawValue)
                )
                // Prefer the bidirectional printer-class alternate setting (protocol 2).
                if found.isPrinterClass && found.bulkIn != nil { return found }
                if found.isPrinterClass && (fallback == nil || fallback?.isPrinterClass == false) { fallback = found }
                if fallback == nil { fallback = found }
            }
        }
        return fallback
    }
}
