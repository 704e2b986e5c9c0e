/// A printer address as the operator writes it in the config or on the command line:
///
/// | URI                                       | transport                                         |
/// |-------------------------------------------|---------------------------------------------------|
/// | `usb://04b8:0202`, `usb://04b8:0202?serial=X`, `usb://` | libusb; `usb://` is the first printer-class device |
/// | `cups://QUEUE`, `cups://QUEUE?server=/run/cups/cups.sock` | a CUPS queue (raw)                    |
/// | `serial:///dev/ttyUSB0?baud=19200&flow=rts-cts` | termios; `flow` is `rts-cts`, `xon-xoff` or `none` |
/// | `tcp://192.168.1.50:9100`                  | raw TCP (port 9100 if omitted)                    |
/// | `file:///dev/usb/lp0`                      | the kernel's usblp character device               |
public enum PrinterAddress: Sendable, Equatable, CustomStringConvertible {
    case usb(USBMatch)
    case cups(queue: String, server: String?)
    case serial(path: String, settings: SerialSettings)
    case tcp(host: String, port: Int)
    case usblp(path: String)

    public init(parsing text: String, defaults: PrinterProfile.TransportDefaults = .init()) throws(PrinterError) {
        guard let schemeEnd = text.range(of: "://") else {
            throw Self.invalid(text, "missing a scheme")
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        var rest = String(text[schemeEnd.upperBound...])
        var query: [String: String] = [:]
        if let mark = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: mark)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, !parts[1].isEmpty else {
                    throw Self.invalid(text, "option '\(pair)' has no value")
                }
                query[String(parts[0])] = String(parts[1])
            }
            rest = String(rest[..<mark])
        }
        func checkOptions(_ allowed: Set<String>) throws(PrinterError) {
            if let unknown = query.keys.sorted().first(where: { !allowed.contains($0) }) {
                throw Self.invalid(
                    text,
                    "unknown option '\(unknown)' (allowed: \(allowed.sorted().joined(separator: ", ")))"
                )
            }
        }

        switch scheme {
        case "usb":
            try checkOptions(["serial"])
            var match = USBMatch(serial: query["serial"])
            if !rest.isEmpty {
                let ids = rest.split(separator: ":", omittingEmptySubsequences: false)
                guard ids.count == 2, let v = UInt16(ids[0], radix: 16), let p = UInt16(ids[1], radix: 16) else {
                    throw Self.invalid(text, "expected usb://VID:PID in hex, e.g. usb://04b8:0202")
                }
                match.vendor = v
                match.product = p
            }
            self = .usb(match)
        case "cups":
            try checkOptions(["server"])
            guard !rest.isEmpty, !rest.contains("/") else { throw Self.invalid(text, "expected cups://QUEUE") }
            self = .cups(queue: rest, server: query["server"])
        case "serial":
            try checkOptions(["baud", "flow"])
            guard rest.hasPrefix("/") else { throw Self.invalid(text, "expected serial:///dev/ttyUSB0") }
            var settings = SerialSettings(baud: defaults.baud, flowControl: defaults.flowControl)
            if let baud = query["baud"] {
                guard let value = Int(baud), SerialSettings.supportedBauds.contains(value) else {
                    throw Self.invalid(text, "baud must be one of \(SerialSettings.supportedBauds)")
                }
                settings.baud = value
            }
            if let flow = query["flow"] {
                guard let value = PrinterProfile.FlowControl(rawValue: flow) else {
                    throw Self.invalid(text, "flow must be rts-cts, xon-xoff or none")
                }
                settings.flowControl = value
            }
            self = .serial(path: rest, settings: settings)
        case "tcp":
            try checkOptions([])
            var host = rest
            var port = 9100
            if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
                let after = host[host.index(after: close)...]
                if after.hasPrefix(":") {
                    guard let p = Int(after.dropFirst()), (1...65535).contains(p) else {
                        throw Self.invalid(text, "bad port")
                    }
                    port = p
                }
                host = String(host[host.index(after: host.startIndex)..<close])
            } else if let colon = host.lastIndex(of: ":") {
                guard let p = Int(host[host.index(after: colon)...]), (1...65535).contains(p) else {
                    throw Self.invalid(text, "bad port")
                }
                port = p
                host = String(host[..<colon])
            }
            guard !host.isEmpty else { throw Self.invalid(text, "expected tcp://HOST:9100") }
            self = .tcp(host: host, port: port)
        case "file":
            try checkOptions([])
            guard rest.hasPrefix("/") else { throw Self.invalid(text, "expected file:///dev/usb/lp0") }
            self = .usblp(path: rest)
        default:
            throw Self.invalid(text, "unknown scheme '\(scheme)'")
        }
    }

    private static func invalid(_ text: String, _ why: String) -> PrinterError {
        PrinterError(
            .invalidAddress,
            device: text,
            "\(why) — use usb://VID:PID, cups://QUEUE, serial:///dev/ttyX?baud=N, tcp://HOST:9100 or file:///dev/usb/lpN"
        )
    }

    public func makeTransport() -> any PrinterTransport {
        switch self {
        case .usb(let match): return USBTransport(match: match)
        case .cups(let queue, let server): return CUPSTransport(queue: queue, server: server)
        case .serial(let path, let settings): return SerialTransport(path: path, settings: settings)
        case .tcp(let host, let port): return TCPTransport(host: host, port: port)
        case .usblp(let path): return UsblpTransport(path: path)
        }
    }

    /// What notices this printer coming back after it was not found: libusb hotplug for USB, the device node
    /// for usblp and serial printers; nil for network printers and CUPS queues (their retries find them).
    public func makeArrivalWatch() -> (any ArrivalWatch)? {
        switch self {
        case .usb(let match): return USBArrivalWatch(match: match)
        case .serial(let path, _), .usblp(let path): return DeviceNodeWatch(path: path)
        case .cups, .tcp: return nil
        }
    }

    public var description: String { makeTransport().address }
}
