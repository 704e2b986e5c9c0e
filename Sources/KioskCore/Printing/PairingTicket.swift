/// The ticket a box with no credential prints so a manager can pair it (RFC 8628's user code): the code large
/// (read aloud or typed), a QR of the console's page with the code filled in (a phone already logged in pairs
/// in one tap), where to type it and until when it is valid. English: the store, and so its languages, is not
/// known before pairing.
public struct PairingTicket: Sendable, Equatable {
    /// As shown to people: `BCDF-GHJK`.
    public var userCode: String
    /// The console's pairing page, and the same with the code (the QR).
    public var verificationURI: String
    public var verificationURIComplete: String
    /// Local time the code stops working, e.g. `10:42`.
    public var validUntil: String
    public var validMinutes: Int
    /// The name the box asked to be enrolled under.
    public var device: String
    public var columns = 48

    public init(
        userCode: String,
        verificationURI: String,
        verificationURIComplete: String,
        validUntil: String,
        validMinutes: Int,
        device: String
    ) {
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.validUntil = validUntil
        self.validMinutes = validMinutes
        self.device = device
    }

    /// The words of the ticket, in order (also what the kiosk logs and its pairing page shows).
    public var lines: [String] {
        [
            "Type this code in the CLup console",
            "at \(verificationURI)",
            "or scan the code with a phone logged in to it.",
            "Valid until \(validUntil) (\(validMinutes) minutes), once.",
            "Kiosk: \(device)",
        ]
    }

    public var document: PrintDocument {
        var doc = PrintDocument()
        doc.append(.text("Pair this kiosk", TextStyle(bold: true, widthScale: 2, heightScale: 2, alignment: .center)))
        let scale = min(3, max(1, columns / max(userCode.count, 1)))
        doc.append(.text(userCode, TextStyle(bold: true, widthScale: scale, heightScale: 3, alignment: .center)))
        doc.append(.qr(verificationURIComplete, QRSpec(errorCorrection: .medium, alignment: .center)))
        for line in lines {
            for part in TicketLayout.wrapped(line, columns: columns) {
                doc.append(.text(part, TextStyle(alignment: .center)))
            }
        }
        doc.append(.feed(lines: 2))
        doc.append(.cut(.partial))
        return doc
    }
}
