import KioskCore

/// The standard test ticket: store name, big code, a QR with a ~100-character payload, three text lines.
/// Its size is what the printer benchmarks measure, so its content stays fixed.
public enum TestTicket {
    /// A payload shaped like a ticket's status URL (QR alphanumeric characters only), 100 characters.
    public static let payload =
        "HTTPS://CLUP.EXAMPLE/T/" + String(repeating: "6BFOXN*TX0:QHF$8AB2", count: 5).prefix(77)

    public static func document(
        store: String = "CLup Market — Via Roma 12",
        code: String = "A042",
        payload: String = payload,
        time: String = "2026-11-22 09:41",
        qrSize: Int? = nil
    ) -> PrintDocument {
        PrintDocument([
            .text(store, TextStyle(bold: true, alignment: .center)),
            .text(code, TextStyle(bold: true, widthScale: 4, heightScale: 4, alignment: .center)),
            .qr(payload, QRSpec(errorCorrection: .medium, moduleSize: qrSize, alignment: .center)),
            .text("3 people ahead · about 6 min", TextStyle(alignment: .center)),
            .text("Printed \(time)", TextStyle(alignment: .center)),
            .text("Scan the code for your live position", TextStyle(alignment: .center)),
            .cut(.partial),
        ])
    }
}
