import Drivers
import KioskCore
import Testing

@testable import DeviceEmulators

@Suite struct ParserTests {
    func commands(_ bytes: [UInt8], chunk: Int) -> [EscPosParser.Command] {
        var parser = EscPosParser()
        var out: [EscPosParser.Command] = []
        var i = 0
        while i < bytes.count {
            out += parser.feed(bytes[i..<min(i + chunk, bytes.count)]).map(\.command)
            i += chunk
        }
        return out
    }

    @Test func commandsSplitAcrossReadsParseTheSame() throws {
        let profile = try PrinterProfile.load(named: "epson-tm-t88")
        var document = PrintDocument([
            .text("Hello €", TextStyle(bold: true, widthScale: 2, heightScale: 2, alignment: .right))
        ])
        document.append(.qr("PAYLOAD-123"))
        document.append(.image(Bitmap(width: 16, height: 3)))
        document.append(.cut())
        let bytes = try EscPosEncoder(profile: profile).encode(document) + EscPos.request(.dleEot4)
        let whole = commands(bytes, chunk: bytes.count)
        #expect(whole.contains(.cut(partial: true)))
        #expect(whole.contains(.realTimeStatus(4)))
        #expect(whole.contains(.characterSize(0x11)))
        #expect(whole.contains(.align(2)))
        for chunk in [1, 2, 3, 7, 64] {
            // Text runs may split differently; everything else must be identical.
            let split = commands(bytes, chunk: chunk)
            #expect(Self.joinedText(split) == Self.joinedText(whole), "chunk \(chunk)")
        }
    }

    static func joinedText(_ commands: [EscPosParser.Command]) -> [EscPosParser.Command] {
        var out: [EscPosParser.Command] = []
        for command in commands {
            if case .text(let more) = command, case .text(let earlier)? = out.last {
                out[out.count - 1] = .text(earlier + more)
            } else {
                out.append(command)
            }
        }
        return out
    }

    @Test func lengthPrefixedCommandsAreSkippedWhole() {
        // GS ( L (graphics) with 4 parameter bytes, then text: the parameters must not print.
        let bytes: [UInt8] = [0x1D, 0x28, 0x4C, 0x04, 0x00, 0x41, 0x42, 0x43, 0x44] + Array("ok".utf8)
        let parsed = commands(bytes, chunk: 3)
        #expect(parsed.last == .text(Array("ok".utf8)))
        #expect(parsed.count == 2)
    }

    @Test func incompleteCommandWaitsForMoreBytes() {
        var parser = EscPosParser()
        #expect(parser.feed([0x1D, 0x76, 0x30, 0x00, 0x01, 0x00, 0x02]).isEmpty)
        #expect(parser.pendingCount == 7)
        let done = parser.feed([0x00, 0xFF, 0x0F])
        #expect(done.map(\.command) == [.rasterImage(mode: 0, widthBytes: 1, height: 2, data: [0xFF, 0x0F])])
        #expect(done.first?.length == 10)
    }

    @Test func randomBytesNeverTrapTheParserOrRenderer() throws {
        let profile = try PrinterProfile.load(named: "generic-58mm")
        var renderer = TicketRenderer(profile: profile, fonts: try .load())
        var parser = EscPosParser()
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0..<64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            for item in parser.feed(bytes) {
                if case .cut = item.command { _ = renderer.finishPage() } else { renderer.apply(item.command) }
            }
        }
        _ = renderer.finishPage()
    }
}
