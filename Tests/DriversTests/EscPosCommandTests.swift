import Testing

@testable import Drivers

/// Expected bytes written from Epson's "ESC/POS Command Reference" (section per command) and Custom's
/// VKP80III Commands Manual, not from our encoder.
@Suite struct EscPosCommandTests {
    @Test func basicCommands() {
        #expect(EscPos.initialize == [0x1B, 0x40])  // ESC @ — "Initialize printer"
        #expect(EscPos.selectCodePage(19) == [0x1B, 0x74, 0x13])  // ESC t n — "Select character code table"
        #expect(EscPos.bold(true) == [0x1B, 0x45, 0x01])  // ESC E n — "Turn emphasized mode on/off"
        #expect(EscPos.bold(false) == [0x1B, 0x45, 0x00])
        #expect(EscPos.underline(1) == [0x1B, 0x2D, 0x01])  // ESC - n — "Turn underline mode on/off"
        #expect(EscPos.underline(7) == [0x1B, 0x2D, 0x02])
        #expect(EscPos.justification(1) == [0x1B, 0x61, 0x01])  // ESC a n — "Select justification"
        #expect(EscPos.lineSpacing(48) == [0x1B, 0x33, 0x30])  // ESC 3 n — "Set line spacing"
        #expect(EscPos.defaultLineSpacing == [0x1B, 0x32])  // ESC 2 — "Select default line spacing"
        #expect(EscPos.printAndFeed(lines: 3) == [0x1B, 0x64, 0x03])  // ESC d n — "Print and feed n lines"
    }

    @Test func characterSizePacksWidthInHighNibble() {
        // GS ! n — "Select character size": bits 4-6 width - 1, bits 0-2 height - 1.
        #expect(EscPos.characterSize(width: 1, height: 1) == [0x1D, 0x21, 0x00])
        #expect(EscPos.characterSize(width: 2, height: 2) == [0x1D, 0x21, 0x11])
        #expect(EscPos.characterSize(width: 4, height: 3) == [0x1D, 0x21, 0x32])
        #expect(EscPos.characterSize(width: 9, height: 0) == [0x1D, 0x21, 0x70])
    }

    @Test func cuts() {
        // GS V — "Select cut mode and cut paper": function A m = 0 full / 1 partial; function B m = 65/66 + n.
        #expect(EscPos.cut(partial: false) == [0x1D, 0x56, 0x00])
        #expect(EscPos.cut(partial: true) == [0x1D, 0x56, 0x01])
        #expect(EscPos.feedAndCut(partial: true, feedDots: 24) == [0x1D, 0x56, 0x42, 0x18])
        #expect(EscPos.feedAndCut(partial: false, feedDots: 0) == [0x1D, 0x56, 0x41, 0x00])
    }

    @Test func qrFunctions() {
        // GS ( k <Function 165> QR Code: Select the model — pL pH cn fn n1 n2 = 04 00 31 41 32 00 (model 2).
        #expect(EscPos.qrSelectModel2() == [0x1D, 0x28, 0x6B, 0x04, 0x00, 0x31, 0x41, 0x32, 0x00])
        // <Function 167> Set the size of module — 03 00 31 43 n.
        #expect(EscPos.qrModuleSize(6) == [0x1D, 0x28, 0x6B, 0x03, 0x00, 0x31, 0x43, 0x06])
        // <Function 169> Select the error correction level — 03 00 31 45 n, n = 49 for level M.
        #expect(EscPos.qrErrorCorrection(49) == [0x1D, 0x28, 0x6B, 0x03, 0x00, 0x31, 0x45, 0x31])
        // <Function 180> Store the data — (pL + pH × 256) = k + 3; 31 50 30 d1...dk.
        #expect(EscPos.qrStore(Array("AB".utf8)) == [0x1D, 0x28, 0x6B, 0x05, 0x00, 0x31, 0x50, 0x30, 0x41, 0x42])
        let long = [UInt8](repeating: 0x41, count: 300)
        #expect(Array(EscPos.qrStore(long).prefix(5)) == [0x1D, 0x28, 0x6B, 0x2F, 0x01])  // 303 = 0x012F
        // <Function 181> Print the symbol data — 03 00 31 51 30.
        #expect(EscPos.qrPrint == [0x1D, 0x28, 0x6B, 0x03, 0x00, 0x31, 0x51, 0x30])
    }

    @Test func rasterImageHeader() {
        // GS v 0 m xL xH yL yH d1...dk — "Print raster bit image"; x in bytes, y in dots.
        let bytes = EscPos.rasterImage(widthBytes: 0x102, height: 2, data: [UInt8](repeating: 0xFF, count: 0x204))
        #expect(Array(bytes.prefix(8)) == [0x1D, 0x76, 0x30, 0x00, 0x02, 0x01, 0x02, 0x00])
        #expect(bytes.count == 8 + 0x204)
    }

    @Test func statusRequests() {
        // DLE EOT n — "Transmit real-time status", n = 1...4.
        #expect(EscPos.request(.dleEot1) == [0x10, 0x04, 0x01])
        #expect(EscPos.request(.dleEot2) == [0x10, 0x04, 0x02])
        #expect(EscPos.request(.dleEot3) == [0x10, 0x04, 0x03])
        #expect(EscPos.request(.dleEot4) == [0x10, 0x04, 0x04])
        // Custom VKP80III: DLE EOT n with n = 20 — "Transmit full status".
        #expect(EscPos.request(.customFull) == [0x10, 0x04, 0x14])
        // GS r n — "Transmit status", n = 1 paper sensor status.
        #expect(EscPos.request(.gsR1) == [0x1D, 0x72, 0x01])
        // GS a n — "Enable/disable Automatic Status Back": bits 1 online/offline, 2 error, 3 roll paper.
        #expect(EscPos.automaticStatusBack(EscPos.asbAll) == [0x1D, 0x61, 0x0E])
        #expect(EscPos.automaticStatusBack(0) == [0x1D, 0x61, 0x00])
    }
}
