import FoundationEssentials

@testable import KioskCore

/// Tickets, events and scans of one test store, signed by one key: what the admission and business-day suites
/// build their histories from.
protocol TicketFixtures {
    var store: StoreID { get }
    var signer: TicketSigner { get }
    var prefix: String { get }
}

extension TicketFixtures {
    var prefix: String { "HTTPS://CLUP.EXAMPLE/T/" }

    func event(_ body: StoreEvent.Body, at time: Timestamp) -> StoreEvent {
        StoreEvent(id: .v7(at: time), store: store, device: "d", time: time, body: body)
    }

    func ticket(_ n: Int, kind: TicketKind = .paper, at time: Timestamp, slot: BookingSlot? = nil) -> Ticket {
        Ticket(
            id: .v7(at: time),
            store: store,
            kind: kind,
            code: TicketCode(prefix: "A", number: n),
            issuedAt: time,
            slot: slot,
            issuer: "d"
        )
    }

    /// The ticket's QR as the door decodes it (signed by `other` to make a forgery).
    func scan(_ t: Ticket, signer other: TicketSigner? = nil) -> Result<TicketCodec.Claims, TicketCodec.DecodeError> {
        let text = TicketCodec.encode(t, signer: other ?? signer, prefix: prefix)
        return Result { () throws(TicketCodec.DecodeError) in
            try TicketCodec.decode(text, prefix: prefix, keyRing: KeyRing([signer.publicKey]), store: store)
        }
    }
}
