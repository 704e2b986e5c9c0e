import KioskCore

/// The standard test ticket: store name, big code, a QR with a ~100-character payload, three text lines, laid
/// out like every kiosk ticket (``TicketLayout``). Its size is what the printer benchmarks measure, so its
/// content stays fixed.
public enum TestTicket {
    /// A payload shaped like a ticket's status URL (QR alphanumeric characters only), 100 characters.
    public static let payload =
        "HTTPS://CLUP.EXAMPLE/T/" + String(repeating: "6BFOXN*TX0:QHF$8AB2", count: 5).prefix(77)

    public static func document(
        store: String = "CLup Market — Via Roma 12",
        code: String = "A042",
        payload: String = payload,
        time: String = "2026-11-22 09:41"
    ) -> PrintDocument {
        TicketLayout.document(
            TicketPrintout(
                storeName: store,
                code: TicketCode(code) ?? TicketCode(prefix: "T", number: 0),
                qrPayload: payload,
                peopleAhead: 3,
                estimatedWait: .seconds(6 * 60),
                printedAt: time,
                footer: "Scan the code for your live position"
            )
        )
    }
}
