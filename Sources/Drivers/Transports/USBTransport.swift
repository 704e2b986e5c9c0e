import CLibUSB

/// A USB printer through libusb: found by VID/PID/serial or printer class 7, the kernel's usblp driver
/// detached (and given back on close), the interface claimed, bulk endpoints taken from its descriptors.
public final class USBTransport: PrinterTransport {
    public let match: USBMatch
    private var context: OpaquePointer?
    private var handle: OpaquePointer?
    private var interface: LibUSB.PrinterInterface?
    private var detachedKernelDriver = false

    public init(match: USBMatch) {
        self.match = match
    }

    deinit { close() }

    public var address: String { match.description }
    public var hasBackChannel: Bool { interface?.bulkIn != nil }
    public var isOpen: Bool { handle != nil }

    public func open() throws(PrinterError) {
        guard handle == nil else { return }
        var ctx: OpaquePointer?
        let rc = libusb_init(&ctx)
        guard rc == 0, let ctx else { throw LibUSB.error(rc, device: address, during: "init") }
        context = ctx
        do {
            try openMatchingDevice(ctx)
        } catch {
            close()
            throw error
        }
    }

    private func openMatchingDevice(_ ctx: OpaquePointer) throws(PrinterError) {
        var list: UnsafeMutablePointer<OpaquePointer?>?
        let count = libusb_get_device_list(ctx, &list)
        guard count >= 0, let list else { throw LibUSB.error(CInt(count), device: address, during: "device list") }
        defer { libusb_free_device_list(list, 1) }
        var lastError: PrinterError?
        for i in 0..<count {
            guard let device = list[i] else { continue }
            var desc = libusb_device_descriptor()
            guard libusb_get_device_descriptor(device, &desc) == 0 else { continue }
            var configPointer: UnsafeMutablePointer<libusb_config_descriptor>?
            guard libusb_get_active_config_descriptor(device, &configPointer) == 0, let config = configPointer else {
                continue
            }
            let found = LibUSB.printerInterface(config)
            libusb_free_config_descriptor(config)
            guard let found else { continue }
            if match.vendor == nil && match.product == nil && !found.isPrinterClass { continue }
            if let v = match.vendor, v != desc.idVendor { continue }
            if let p = match.product, p != desc.idProduct { continue }

            var h: OpaquePointer?
            let rc = libusb_open(device, &h)
            guard rc == 0, let h else {
                lastError = LibUSB.error(rc, device: address, during: "open")
                continue
            }
            if let wanted = match.serial, LibUSB.string(h, index: desc.iSerialNumber) != wanted {
                libusb_close(h)
                continue
            }
            do {
                try claim(h, found)
                handle = h
                interface = found
                return
            } catch {
                libusb_close(h)
                lastError = error
            }
        }
        throw lastError
            ?? PrinterError(
                .notFound,
                device: address,
                "no matching USB printer is plugged in — check the cable, power, and `kioskd devices`"
            )
    }

    private func claim(_ h: OpaquePointer, _ found: LibUSB.PrinterInterface) throws(PrinterError) {
        let number = CInt(found.number)
        if libusb_kernel_driver_active(h, number) == 1 {
            let rc = libusb_detach_kernel_driver(h, number)
            guard rc == 0 else { throw LibUSB.error(rc, device: address, during: "detach usblp") }
            detachedKernelDriver = true
        }
        let rc = libusb_claim_interface(h, number)
        guard rc == 0 else { throw LibUSB.error(rc, device: address, during: "claim interface \(number)") }
        if found.alternate != 0 {
            let alt = libusb_set_interface_alt_setting(h, number, CInt(found.alternate))
            guard alt == 0 else { throw LibUSB.error(alt, device: address, during: "select alternate setting") }
        }
    }

    public func write(_ bytes: [UInt8], timeout: Duration) throws(PrinterError) {
        guard let handle, let interface else { throw PrinterError(.disconnected, device: address, "not open") }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var offset = 0
        while offset < bytes.count {
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else {
                throw PrinterError(
                    .timeout,
                    device: address,
                    "the printer took only \(offset) of \(bytes.count) bytes in \(timeout) — is it out of paper or paused?"
                )
            }
            var sent: CInt = 0
            let chunk = min(bytes.count - offset, 16384)
            var data = Array(bytes[offset..<(offset + chunk)])
            let rc = libusb_bulk_transfer(
                handle,
                interface.bulkOut,
                &data,
                CInt(chunk),
                &sent,
                UInt32(clamping: max(remaining.milliseconds, 1))
            )
            offset += Int(sent)
            if rc == LIBUSB_ERROR_TIMEOUT.rawValue { continue }
            if rc == LIBUSB_ERROR_PIPE.rawValue {
                _ = libusb_clear_halt(handle, interface.bulkOut)
            }
            guard rc == 0 else { throw LibUSB.error(refined(rc), device: address, during: "bulk OUT") }
        }
    }

    public func read(timeout: Duration) throws(PrinterError) -> [UInt8] {
        guard let handle, let interface else { throw PrinterError(.disconnected, device: address, "not open") }
        guard let endpoint = interface.bulkIn else { return [] }
        var buffer = [UInt8](repeating: 0, count: 512)
        var received: CInt = 0
        let rc = libusb_bulk_transfer(
            handle,
            endpoint,
            &buffer,
            CInt(buffer.count),
            &received,
            UInt32(clamping: max(timeout.milliseconds, 1))
        )
        if rc == LIBUSB_ERROR_TIMEOUT.rawValue { return Array(buffer[0..<Int(received)]) }
        if rc == LIBUSB_ERROR_PIPE.rawValue { _ = libusb_clear_halt(handle, endpoint) }
        guard rc == 0 else { throw LibUSB.error(refined(rc), device: address, during: "bulk IN") }
        return Array(buffer[0..<Int(received)])
    }

    /// A transfer cut off by an unplug can fail as a plain I/O error: asking the device for its configuration
    /// tells whether it is still there, so the operator reads "unplugged" rather than "transfer failed".
    private func refined(_ rc: CInt) -> CInt {
        guard rc == LIBUSB_ERROR_IO.rawValue, let handle else { return rc }
        var configuration: CInt = 0
        let probe = libusb_get_configuration(handle, &configuration)
        return probe == LIBUSB_ERROR_NO_DEVICE.rawValue ? probe : rc
    }

    public func close() {
        if let handle, let interface {
            _ = libusb_release_interface(handle, CInt(interface.number))
            // Give the printer back to usblp so other tools work again after kioskd stops.
            if detachedKernelDriver { _ = libusb_attach_kernel_driver(handle, CInt(interface.number)) }
        }
        if let handle { libusb_close(handle) }
        if let context { libusb_exit(context) }
        handle = nil
        interface = nil
        context = nil
        detachedKernelDriver = false
    }
}
