/// What goes on a printed ticket.
public struct TicketPrintout: Sendable, Equatable {
    public var storeName: String
    public var code: TicketCode
    /// The signed code's QR text (status URL + the code, ``TicketCodec``).
    public var qrPayload: String
    public var peopleAhead: Int
    /// The wait until the ticket is called: from now, or from the opening when `opensAt` is set; and the range
    /// it falls in four times out of five (``WaitRange``), printed beside it when it says more than the point.
    public var estimatedWait: Duration
    public var estimatedRange: ClosedRange<Duration>?
    /// Issue time as the store reads it, e.g. "22.11.2026 09:41" (formatted by the caller, who knows the zone).
    public var printedAt: String
    /// When the store opens, if it is closed as the ticket is printed (`07:00`, formatted by the caller): the
    /// holder's place is in the line called from then.
    public var opensAt: String?
    /// A short URL to type in if the QR cannot be scanned.
    public var statusURL: String?
    public var footer: String?
    public var logo: Bitmap?

    public init(
        storeName: String,
        code: TicketCode,
        qrPayload: String,
        peopleAhead: Int,
        estimatedWait: Duration,
        estimatedRange: ClosedRange<Duration>? = nil,
        printedAt: String,
        opensAt: String? = nil,
        statusURL: String? = nil,
        footer: String? = nil,
        logo: Bitmap? = nil
    ) {
        self.storeName = storeName
        self.code = code
        self.qrPayload = qrPayload
        self.peopleAhead = peopleAhead
        self.estimatedWait = estimatedWait
        self.estimatedRange = estimatedRange
        self.printedAt = printedAt
        self.opensAt = opensAt
        self.statusURL = statusURL
        self.footer = footer
        self.logo = logo
    }
}

/// Lays a ticket out as an abstract document; the printer's encoder turns it into bytes.
public enum TicketLayout {
    public static func document(_ t: TicketPrintout) -> PrintDocument {
        var doc = PrintDocument()
        if let logo = t.logo { doc.append(.image(logo, .center)) }
        doc.append(.text(t.storeName, TextStyle(bold: true, alignment: .center)))
        doc.append(.text(t.code.description, TextStyle(bold: true, widthScale: 4, heightScale: 4, alignment: .center)))
        doc.append(.qr(t.qrPayload, QRSpec(errorCorrection: .medium, alignment: .center)))
        if let opens = t.opensAt {
            doc.append(.text("Store opens at \(opens)", TextStyle(bold: true, alignment: .center)))
        }
        let ahead = aheadLine(
            t.peopleAhead,
            wait: t.estimatedWait,
            range: t.estimatedRange,
            fromOpening: t.opensAt != nil
        )
        doc.append(.text(ahead, TextStyle(bold: true, alignment: .center)))
        doc.append(.text(t.printedAt, TextStyle(alignment: .center)))
        if let url = t.statusURL { doc.append(.text(url, TextStyle(alignment: .center))) }
        if let footer = t.footer, !footer.isEmpty { doc.append(.text(footer, TextStyle(alignment: .center))) }
        doc.append(.cut(.partial))
        return doc
    }

    static func aheadLine(
        _ ahead: Int,
        wait: Duration,
        range: ClosedRange<Duration>? = nil,
        fromOpening: Bool = false
    ) -> String {
        let people = ahead == 0 ? "Nobody ahead" : ahead == 1 ? "1 person ahead" : "\(ahead) people ahead"
        let (minutes, span) = WaitRange.shownMinutes(point: wait, low: range?.lowerBound, high: range?.upperBound)
        // "8–12": whole minutes around the point.
        let around = span.map { " (\($0.lowerBound)–\($0.upperBound))" } ?? ""
        if fromOpening {
            return minutes == 0
                ? "\(people) · called at opening" : "\(people) · about \(minutes) min after opening\(around)"
        }
        return minutes == 0 ? "\(people) · go to the door" : "\(people) · about \(minutes) min\(around)"
    }
}
