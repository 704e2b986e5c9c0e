import Drivers
import KioskCore
import QRSymbol
import Testing

@testable import KioskStation

@Suite struct TestTicketTests {
    @Test func testTicketEncodesForEveryProfile() throws {
        #expect(TestTicket.payload.count == 100)
        for id in PrinterProfile.bundledIDs {
            let profile = try PrinterProfile.load(named: id)
            let bytes = try EscPosEncoder(profile: profile).encode(TestTicket.document())
            #expect(bytes.starts(with: EscPos.initialize))
            #expect(bytes.suffix(3) == [0x1D, 0x56, 0x01], "\(id) does not end with a partial cut")
            if profile.nativeQR { #expect(bytes.count <= 400, "\(id): \(bytes.count) bytes") }
        }
    }
}

@Suite struct TicketLayoutTests {
    /// A ticket's signed QR with the default status URL stays at QR version 8 or below at ECC M.
    @Test func signedTicketQRIsAtMostVersion8() throws {
        let signer = TicketSigner()
        let ticket = Ticket(
            id: .v7(at: Timestamp(seconds: 1)),
            store: .init(),
            kind: .booking,
            code: TicketCode(prefix: "ZZ", number: 65535),
            issuedAt: Timestamp(seconds: 4_000_000_000),
            issuer: "d"
        )
        let longest = String(repeating: "/", count: TicketCodec.maxPrefixLength)
        for prefix in ["HTTPS://CLUP.EXAMPLE/T/", longest] {
            let text = TicketCodec.encode(
                ticket,
                validFrom: Timestamp(seconds: 4_000_000_000),
                validUntil: Timestamp(seconds: 4_000_000_300),
                signer: signer,
                prefix: prefix
            )
            let version = try QRMatrix.encode(Array(text.utf8), errorCorrection: .medium).version
            #expect(version <= 8, "\(text.count) characters need version \(version)")
        }
    }

    @Test func layoutHasEverythingOnTheTicket() throws {
        let printout = TicketPrintout(
            storeName: "Market",
            code: TicketCode(prefix: "A", number: 7),
            qrPayload: "HTTPS://X/T/ABC",
            peopleAhead: 4,
            estimatedWait: .seconds(500),
            printedAt: "2026-11-22 09:41",
            statusURL: "clup.example/t",
            footer: "Thank you",
            logo: Bitmap(width: 8, height: 8)
        )
        let blocks = TicketLayout.document(printout).blocks
        #expect(blocks.first == .image(Bitmap(width: 8, height: 8), .center))
        #expect(blocks.contains(.qr("HTTPS://X/T/ABC", QRSpec(errorCorrection: .medium, alignment: .center))))
        let texts = blocks.compactMap { if case .text(let t, _) = $0 { t } else { nil } }
        #expect(
            texts == [
                "Market", "A007", "4 people ahead · about 9 min", "Follow it on your phone: we tell you when to",
                "walk back", "2026-11-22 09:41", "clup.example/t", "Thank you",
            ]
        )
        #expect(blocks.last == .cut(.partial))
    }
}
