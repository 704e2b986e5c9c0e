/// Everything the driver needs to know about one printer model family. Loaded from a TOML file in
/// `Profiles/` (see ``PrinterProfile/load(named:)``); the files are the reference, this type only holds them.
public struct PrinterProfile: Sendable, Equatable, Identifiable {
    public enum FlowControl: String, Sendable, Equatable, CaseIterable {
        case none
        case rtsCts = "rts-cts"
        case xonXoff = "xon-xoff"
    }

    public struct CodePageSlot: Sendable, Equatable {
        public var page: CodePage
        /// The `n` of `ESC t n` that selects this page on this printer.
        public var escT: UInt8
    }

    /// Defaults for the transports, used when the printer URI does not say otherwise.
    public struct TransportDefaults: Sendable, Equatable {
        public var baud: Int = 38400
        public var flowControl: FlowControl = .rtsCts
        public var usbVendor: UInt16?
        public var usbProduct: UInt16?
        /// IEEE 1284 device id (what a USB printer reports; the gadget rig presents it).
        public var ieee1284ID: String?

        public init() {}
    }

    /// File name without extension, e.g. `epson-tm-t88`.
    public var id: String
    public var name: String
    public var dotsPerLine: Int
    public var dpi: Int
    /// Pages the printer has, first is the default.
    public var codePages: [CodePageSlot]
    public var nativeQR: Bool
    /// Largest QR version the printer's `GS ( k` accepts.
    public var qrMaxVersion: Int
    /// Real-time status requests the printer answers.
    public var statusQueries: Set<StatusSource>
    /// Whether it supports Automatic Status Back (`GS a n`).
    public var automaticStatusBack: Bool
    /// Whether a presenter (or paper-at-exit sensor) tells when the ticket was taken.
    public var presenter: Bool
    /// Lines fed before the cut so the last printed line clears the cutter.
    public var feedBeforeCut: Int
    /// The command that pulls a presented ticket back into the printer (a presenter that can retract); nil when
    /// this printer cannot.
    public var retract: [UInt8]?
    public var status: StatusBitMap
    public var transport: TransportDefaults

    /// The query that reports `ticketPresent`, preferring a real-time request over ASB.
    public var ticketPresentQuery: StatusSource? {
        statusQueries.sorted { $0.rawValue < $1.rawValue }
            .first { status.conditions(of: $0).contains(.ticketPresent) }
    }

    /// Characters per line in Font A (12 dots wide).
    public var columns: Int { dotsPerLine / 12 }
}
