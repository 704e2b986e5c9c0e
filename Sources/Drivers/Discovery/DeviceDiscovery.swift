import CCUPS
import CLibUSB
import Foundation

/// What `kioskd devices` shows: printers (USB, usblp, CUPS) and scanner candidates (serial, HID keyboards).
public struct DiscoveredDevice: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case usbPrinter = "usb"
        case usblp, cups
        case serialPort = "serial"
        case hidKeyboard = "hid"
    }

    public var kind: Kind
    /// The address to put in the config (`usb://04b8:0202`, `cups://Q`, `/dev/input/by-id/...`).
    public var address: String
    public var summary: String
    /// A shipped profile that matches this device's VID/PID, if any.
    public var profileID: String?
}

public enum DeviceDiscovery {
    /// Everything found; sections that cannot be listed (no CUPS, no USB access) say so in `notes`.
    public static func scan(profiles: [PrinterProfile]) -> (devices: [DiscoveredDevice], notes: [String]) {
        var devices: [DiscoveredDevice] = []
        var notes: [String] = []
        switch usbPrinters(profiles: profiles) {
        case .success(let found): devices += found
        case .failure(let error): notes.append(error.description)
        }
        devices += usblpNodes()
        switch cupsQueues() {
        case .success(let found): devices += found
        case .failure(let error): notes.append(error.description)
        }
        devices += scannerCandidates()
        return (devices, notes)
    }

    /// USB devices with a printer-class interface, or whose VID/PID a shipped profile names.
    public static func usbPrinters(profiles: [PrinterProfile]) -> Result<[DiscoveredDevice], PrinterError> {
        var ctx: OpaquePointer?
        let rc = libusb_init(&ctx)
        guard rc == 0, let ctx else { return .failure(LibUSB.error(rc, device: "usb", during: "init")) }
        defer { libusb_exit(ctx) }
        var list: UnsafeMutablePointer<OpaquePointer?>?
        let count = libusb_get_device_list(ctx, &list)
        guard count >= 0, let list else {
            return .failure(LibUSB.error(CInt(count), device: "usb", during: "device list"))
        }
        defer { libusb_free_device_list(list, 1) }
        var found: [DiscoveredDevice] = []
        for i in 0..<count {
            guard let device = list[i] else { continue }
            var desc = libusb_device_descriptor()
            guard libusb_get_device_descriptor(device, &desc) == 0 else { continue }
            var configPointer: UnsafeMutablePointer<libusb_config_descriptor>?
            var printerClass = false
            if libusb_get_active_config_descriptor(device, &configPointer) == 0, let config = configPointer {
                printerClass = LibUSB.printerInterface(config)?.isPrinterClass ?? false
                libusb_free_config_descriptor(config)
            }
            let profile = profiles.first {
                $0.transport.usbVendor == desc.idVendor && $0.transport.usbProduct == desc.idProduct
            }
            guard printerClass || profile != nil else { continue }
            var names = "(cannot open: no permission to read its name — see udev/)"
            var serial: String?
            var handle: OpaquePointer?
            if libusb_open(device, &handle) == 0, let handle {
                let maker = LibUSB.string(handle, index: desc.iManufacturer) ?? "?"
                let model = LibUSB.string(handle, index: desc.iProduct) ?? "?"
                serial = LibUSB.string(handle, index: desc.iSerialNumber)
                names = "\(maker) \(model)" + (serial.map { " serial \($0)" } ?? "")
                libusb_close(handle)
            }
            let match = USBMatch(vendor: desc.idVendor, product: desc.idProduct)
            let place = "bus \(libusb_get_bus_number(device)) device \(libusb_get_device_address(device))"
            found.append(
                DiscoveredDevice(
                    kind: .usbPrinter,
                    address: match.description,
                    summary: "\(names), \(place)\(printerClass ? ", printer class" : "")",
                    profileID: profile?.id
                )
            )
        }
        return .success(found)
    }

    /// usblp character devices.
    public static func usblpNodes() -> [DiscoveredDevice] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/usb")) ?? []
        return names.filter { $0.hasPrefix("lp") }.sorted().map {
            DiscoveredDevice(kind: .usblp, address: "file:///dev/usb/\($0)", summary: "usblp node", profileID: nil)
        }
    }

    /// Queues of the default CUPS scheduler (or `server`).
    public static func cupsQueues(server: String? = nil) -> Result<[DiscoveredDevice], PrinterError> {
        let cups: CCUPS_API
        do { cups = try CUPSLibrary.load(for: "cups") } catch { return .failure(error) }
        let (host, port) = CUPSTransport.split(server ?? cups.cupsServer().map { String(cString: $0) } ?? "localhost")
        guard let http = cups.httpConnect2(host, port, nil, AF_UNSPEC, HTTP_ENCRYPTION_IF_REQUESTED, 1, 2000, nil)
        else {
            return .failure(
                PrinterError(.notFound, device: "cups", "no CUPS scheduler at \(host) — CUPS queues not listed")
            )
        }
        defer { cups.httpClose(http) }
        var dests: UnsafeMutablePointer<cups_dest_t>?
        let n = cups.cupsGetDests2(http, &dests)
        defer { cups.cupsFreeDests(n, dests) }
        var found: [DiscoveredDevice] = []
        for i in 0..<Int(n) {
            guard let dest = dests?[i], let name = dest.name else { continue }
            let uri =
                cups.cupsGetOption("device-uri", dest.num_options, dest.options).map { String(cString: $0) } ?? "?"
            let queue = String(cString: name)
            found.append(
                DiscoveredDevice(kind: .cups, address: "cups://\(queue)", summary: "queue → \(uri)", profileID: nil)
            )
        }
        return .success(found)
    }

    /// Serial ports and HID keyboards (where barcode scanners in keyboard-wedge mode appear).
    public static func scannerCandidates() -> [DiscoveredDevice] {
        var found: [DiscoveredDevice] = []
        let fm = FileManager.default
        for name in ((try? fm.contentsOfDirectory(atPath: "/dev/serial/by-id")) ?? []).sorted() {
            found.append(
                DiscoveredDevice(
                    kind: .serialPort,
                    address: "/dev/serial/by-id/\(name)",
                    summary: "serial port",
                    profileID: nil
                )
            )
        }
        for name in ((try? fm.contentsOfDirectory(atPath: "/dev")) ?? []).sorted() where name.hasPrefix("ttyACM") {
            found.append(
                DiscoveredDevice(
                    kind: .serialPort,
                    address: "/dev/\(name)",
                    summary: "CDC-ACM serial port",
                    profileID: nil
                )
            )
        }
        for name in ((try? fm.contentsOfDirectory(atPath: "/dev/input/by-id")) ?? []).sorted()
        where name.hasSuffix("-event-kbd") {
            found.append(
                DiscoveredDevice(
                    kind: .hidKeyboard,
                    address: "/dev/input/by-id/\(name)",
                    summary: "HID keyboard (scanner?)",
                    profileID: nil
                )
            )
        }
        return found
    }
}
