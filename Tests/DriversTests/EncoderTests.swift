import Foundation
import KioskCore
import QRSymbol
import TestSupport
import Testing

@testable import Drivers

@Suite struct EncoderTests {
    let epson = try! PrinterProfile.load(named: "epson-tm-t88")
    let tmT20 = try! PrinterProfile.load(named: "epson-tm-t20")

    @Test func smallDocumentBytesExactly() throws {
        let document = PrintDocument([
            .text("Hi", TextStyle(bold: true, alignment: .center)),
            .text("Hi", TextStyle(bold: true, alignment: .center)),
            .text("x"),
            .cut(.full),
        ])
        let bytes = try EscPosEncoder(profile: epson).encode(document)
        let expected: [UInt8] =
            [0x1B, 0x40]  // ESC @
            + [0x1B, 0x74, 19]  // ESC t 19: the profile's first page, cp858
            + [0x1B, 0x61, 1, 0x1B, 0x45, 1] + Array("Hi\n".utf8)  // centre, bold on
            + Array("Hi\n".utf8)  // same style: no commands repeated
            + [0x1B, 0x61, 0, 0x1B, 0x45, 0] + Array("x\n".utf8)
            + [0x1B, 0x64, 3]  // feed_before_cut lines
            + [0x1D, 0x56, 0]  // full cut
        #expect(bytes == expected)
    }

    @Test func euroSwitchesToACodePageThatHasIt() throws {
        // cp858 has € at 0xD5 (the euro variant of cp850); cp1252 at 0x80; cp437 has none.
        #expect(CodePage.cp858.byte(for: "€") == 0xD5)
        #expect(CodePage.cp1252.byte(for: "€") == 0x80)
        #expect(CodePage.cp437.byte(for: "€") == nil)
        #expect(CodePage.cp852.byte(for: "ł") == 0x88)

        let generic = try PrinterProfile.load(named: "generic-58mm")  // cp437 first, then cp858
        let encoder = EscPosEncoder(profile: generic)
        var page = 0
        var replaced = 0
        let bytes = encoder.encodeCharacters("1€ é", pageIndex: &page, replaced: &replaced)
        // '1' on cp437, then ESC t 19 (cp858) for €, and é stays on cp858 (0x82 there too).
        #expect(bytes == [0x31, 0x1B, 0x74, 19, 0xD5, 0x20, 0x82])
        #expect(page == 1 && replaced == 0)
    }

    @Test func missingCharactersBecomeQuestionMarksNeverControlBytes() throws {
        let encoder = EscPosEncoder(profile: epson)
        var page = 0
        var replaced = 0
        let bytes = encoder.encodeCharacters("A日\u{1B}\u{7}B", pageIndex: &page, replaced: &replaced)
        #expect(bytes == Array("A???B".utf8))
        #expect(replaced == 3)
    }

    @Test func everyPageRoundTripsItsOwnCharacters() {
        for page in CodePage.all {
            for byte in UInt8(0x20)...UInt8(0xFF) {
                guard let scalar = page.scalar(for: byte) else { continue }
                #expect(page.byte(for: scalar) != nil, "\(page) cannot encode \(scalar) it decodes from \(byte)")
            }
        }
    }

    @Test func standardTicketWithNativeQRIsAtMost400Bytes() throws {
        let bytes = try EscPosEncoder(profile: epson, qrMode: .native).encode(TestDocument.standard)
        #expect(bytes.count <= 400)
        #expect(bytes.contains(subsequence: [0x1D, 0x28, 0x6B, 0x03, 0x00, 0x31, 0x51, 0x30]))  // fn 181 print
        #expect(!bytes.contains(subsequence: [0x1D, 0x76, 0x30]))
    }

    @Test func profileWithoutNativeQRGetsARasterImage() throws {
        let bytes = try EscPosEncoder(profile: tmT20).encode(TestDocument.standard)
        #expect(bytes.contains(subsequence: [0x1D, 0x76, 0x30, 0x00]))
        #expect(!bytes.contains(subsequence: [0x1D, 0x28, 0x6B]))
        #expect(bytes.count > 1000)
    }

    @Test func qrDataLongerThanThePrinterAcceptsIsAnError() throws {
        var small = epson
        small.qrMaxVersion = 5
        let payload = String(repeating: "x", count: 200)  // needs version 9 at M in byte mode
        #expect(throws: PrinterError.self) {
            try EscPosEncoder(profile: small, qrMode: .native).encode(PrintDocument([.qr(payload)]))
        }
        let huge = String(repeating: "y", count: 3000)  // beyond version 40 at M
        do {
            _ = try EscPosEncoder(profile: epson, qrMode: .native).encode(PrintDocument([.qr(huge)]))
            Issue.record("3000 bytes of QR data were accepted")
        } catch {
            #expect(error.code == .unsupported)
            #expect(error.message.contains("shorten"))
        }
    }

    @Test func qrThatDoesNotFitThePaperIsAnError() {
        let generic = try! PrinterProfile.load(named: "generic-58mm")
        let document = PrintDocument([.qr(String(repeating: "z", count: 1000), QRSpec(moduleSize: 4))])
        #expect(throws: PrinterError.self) { try EscPosEncoder(profile: generic).encode(document) }
    }

    @Test func imagesWiderThanThePaperAreRefused() {
        let wide = Bitmap(width: 600, height: 10)
        #expect(throws: PrinterError.self) { try EscPosEncoder(profile: epson).encode(PrintDocument([.image(wide)])) }
        let fits = Bitmap(width: 512, height: 3000)
        let bytes = try! EscPosEncoder(profile: epson).encode(PrintDocument([.image(fits)]))
        // 3000 rows go in two bands of at most 2303 rows.
        #expect(bytes.count == 2 + 3 + 3 + 2 * 8 + 64 * 3000)
    }
}

enum TestDocument {
    /// Same shape as KioskStation's TestTicket (Drivers tests cannot import KioskStation).
    static let standard = PrintDocument([
        .text("CLup Market — Via Roma 12", TextStyle(bold: true, alignment: .center)),
        .text("A042", TextStyle(bold: true, widthScale: 4, heightScale: 4, alignment: .center)),
        .qr(String(repeating: "HTTPS://CLUP.EXAMPLE/T/6BFOXN", count: 4).prefix(100).description),
        .text("3 people ahead · about 6 min", TextStyle(alignment: .center)),
        .text("Printed 2026-11-22 09:41", TextStyle(alignment: .center)),
        .text("Scan the code for your live position", TextStyle(alignment: .center)),
        .cut(.partial),
    ])
}

extension Array where Element == UInt8 {
    func contains(subsequence: [UInt8]) -> Bool {
        guard subsequence.count <= count else { return false }
        for start in 0...(count - subsequence.count)
        where self[start..<(start + subsequence.count)].elementsEqual(subsequence) {
            return true
        }
        return false
    }
}

/// The ticket code's URL-safe form costs nothing in the QR: the same length as Base45, still all alphanumeric
/// mode, the same version at ECC M (libqrencode, as the raster path draws it).
@Suite struct TicketQRSizeTests {
    @Test func theURLSafeCodeNeedsTheSameQRVersionAsBase45() throws {
        let prefix = "HTTPS://CLUP.EXAMPLE/T/"
        let ticket = Ticket(
            id: .v7(at: Timestamp(seconds: 1_795_000_000)),
            store: UUID(),
            kind: .paper,
            code: TicketCode(prefix: "A", number: 42),
            issuedAt: Timestamp(seconds: 1_795_000_000),
            issuer: "entrance"
        )
        let code = TicketCodec.encode(ticket, signer: TicketSigner(), prefix: prefix)
        var record = try #require(TicketCodec.record(of: code.dropFirst(prefix.count)))
        record[0] = 1
        let base45 = prefix + Base45.encode(record)
        let now = try QRMatrix.encode(Array(code.utf8), errorCorrection: .medium).version
        let before = try QRMatrix.encode(Array(base45.utf8), errorCorrection: .medium).version
        #expect(code.count == base45.count)
        #expect(now == before && now <= 8, "format 2 needs version \(now), format 1 needed \(before)")
        let longest = String(repeating: "A", count: TicketCodec.maxPrefixLength)
        let longestCode = longest + code.dropFirst(prefix.count)
        #expect(try QRMatrix.encode(Array(longestCode.utf8), errorCorrection: .medium).version <= 8)
    }
}

@Suite struct QRVersionBoundTests {
    /// The bound is never below what libqrencode needs for the real data, for any class and level.
    @Test func boundIsAtLeastTheRealVersion() throws {
        var rng = SplitMix64(seed: 42)
        let alphabets: [[UInt8]] = [
            Array("0123456789".utf8), Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8),
            (1...255).map { UInt8($0) },
        ]
        for _ in 0..<300 {
            let alphabet = alphabets[Int(rng.next() % 3)]
            let data = (0..<Int(1 + rng.next() % 400)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            let level = QRSpec.ErrorCorrection.allCases[Int(rng.next() % 4)]
            let real = try QRMatrix.encode(data, errorCorrection: level).version
            let bound = try QRVersionBound.version(for: data, errorCorrection: level)
            #expect(bound >= real, "bound \(bound) < real \(real) for \(data.count) bytes at \(level)")
            #expect(bound <= real + 3, "bound \(bound) far above real \(real)")
        }
    }
}
