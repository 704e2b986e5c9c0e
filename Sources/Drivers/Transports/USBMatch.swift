/// Which USB printer to use: by vendor/product (and serial number when several are plugged in), or the
/// first device with a printer-class (7) interface.
public struct USBMatch: Sendable, Equatable, CustomStringConvertible {
    public var vendor: UInt16?
    public var product: UInt16?
    public var serial: String?

    public init(vendor: UInt16? = nil, product: UInt16? = nil, serial: String? = nil) {
        self.vendor = vendor
        self.product = product
        self.serial = serial
    }

    public var description: String {
        var text = "usb://"
        if let vendor { text += hex4(vendor) }
        if let product { text += ":" + hex4(product) }
        if let serial { text += "?serial=\(serial)" }
        return text
    }

    public func matches(vendor v: UInt16, product p: UInt16, serial s: String?, hasPrinterInterface: Bool) -> Bool {
        if vendor == nil && product == nil && !hasPrinterInterface { return false }
        if let vendor, vendor != v { return false }
        if let product, product != p { return false }
        if let serial, serial != s { return false }
        return true
    }
}

func hex4(_ value: UInt16) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 4 - digits.count) + digits
}
