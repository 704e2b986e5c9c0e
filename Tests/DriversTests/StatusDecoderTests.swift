import TestSupport
import Testing

@testable import Drivers

@Suite struct StatusDecoderTests {
    let epson = try! PrinterProfile.load(named: "epson-tm-t88")
    let custom = try! PrinterProfile.load(named: "custom-vkp80iii")
    let citizen = try! PrinterProfile.load(named: "citizen-ppu-700")

    func reports(_ events: [StatusDecoder.Event]) -> [StatusReport] {
        events.compactMap { if case .report(let r) = $0 { r } else { nil } }
    }

    @Test func dleEotRepliesAreMatchedToTheirRequestsInOrder() {
        var decoder = StatusDecoder(map: epson.status)
        decoder.expect(.dleEot1)
        decoder.expect(.dleEot2)
        decoder.expect(.dleEot4)
        // Epson "DLE EOT": 0x1A = offline (bit 3) | fixed 0x12; 0x16 = cover open (bit 2);
        // 0x7E = paper near end (bits 2,3) and paper end (bits 5,6).
        let r = reports(decoder.feed([0x1A, 0x16, 0x7E]))
        #expect(r.map(\.source) == [.dleEot1, .dleEot2, .dleEot4])
        #expect(r[0].conditions == [.offline: true])
        #expect(r[1].conditions == [.coverOpen: true, .paperEnd: false])
        #expect(r[2].conditions == [.paperNearEnd: true, .paperEnd: true])
        #expect(decoder.pendingRequests.isEmpty)
    }

    @Test func asbBlockIsRecognisedBetweenOtherReplies() {
        var decoder = StatusDecoder(map: epson.status)
        decoder.expect(.dleEot1)
        // ASB: 0x38 = header 0x10 | offline 0x08 | cover 0x20; byte 3: paper end 0x0C.
        let events = decoder.feed([0x38, 0x00, 0x0C, 0x00, 0x11, 0x12, 0x13])
        #expect(events.count == 4)
        #expect(events[1] == .xon && events[3] == .xoff)
        let r = reports(events)
        #expect(r[0].source == .asb)
        #expect(r[0].conditions[.offline] == true && r[0].conditions[.coverOpen] == true)
        #expect(r[0].conditions[.paperEnd] == true && r[0].conditions[.cutterError] == false)
        #expect(r[1].source == .dleEot1 && r[1].conditions == [.offline: false])
    }

    @Test func customFullStatusAndItsPresenterBit() {
        var decoder = StatusDecoder(map: custom.status)
        decoder.expect(.customFull)
        // VKP80III full status: 10 0F, paper status (bit 5 ticket present), user, recoverable, unrecoverable.
        let r = reports(decoder.feed([0x10, 0x0F, 0x20, 0x00, 0x00, 0x01]))
        #expect(r.count == 1)
        #expect(r[0].source == .customFull)
        #expect(r[0].conditions[.ticketPresent] == true)
        #expect(r[0].conditions[.cutterError] == true)
        #expect(r[0].conditions[.paperEnd] == false)
    }

    @Test func citizenAsbPresenterBitIsActiveWhenClear() {
        var decoder = StatusDecoder(map: citizen.status)
        // ASB byte 3 bit 3 = "paper not found by presenter sensor": clear means a ticket is there.
        let present = reports(decoder.feed([0x10, 0x00, 0x00, 0x00]))
        let taken = reports(decoder.feed([0x10, 0x00, 0x08, 0x00]))
        #expect(present[0].conditions[.ticketPresent] == true)
        #expect(taken[0].conditions[.ticketPresent] == false)
    }

    @Test func gsRReplyOnlyWhileRequested() {
        var decoder = StatusDecoder(map: epson.status)
        #expect(decoder.feed([0x03]) == [.discarded([0x03])])
        decoder.expect(.gsR1)
        let r = reports(decoder.feed([0x03]))
        #expect(r.first?.conditions == [.paperNearEnd: true, .paperEnd: false])
    }

    @Test func garbageIsDiscardedAndParsingResumes() {
        var decoder = StatusDecoder(map: epson.status)
        decoder.expect(.dleEot2)
        // 0xFF, 0x80: bit 7 set, never a status byte. Then an ASB header broken by 0x90, then a reply.
        let events = decoder.feed([0xFF, 0x80, 0x10, 0x00, 0x90, 0x12])
        #expect(events.first == .discarded([0xFF, 0x80, 0x10, 0x00, 0x90]))
        #expect(reports(events).map(\.source) == [.dleEot2])
    }

    @Test func unsolicitedDleEotReplyIsDiscarded() {
        var decoder = StatusDecoder(map: epson.status)
        #expect(decoder.feed([0x12]) == [.discarded([0x12])])
    }

    @Test func partialBlocksSurviveSplitReads() {
        var decoder = StatusDecoder(map: custom.status)
        decoder.expect(.customFull)
        #expect(decoder.feed([0x10]).isEmpty)
        #expect(decoder.feed([0x0F, 0x01]).isEmpty)
        #expect(reports(decoder.feed([0x00, 0x00, 0x00])).first?.conditions[.paperEnd] == true)
    }

    @Test func resetDropsPendingAndPartial() {
        var decoder = StatusDecoder(map: epson.status)
        decoder.expect(.dleEot1)
        _ = decoder.feed([0x10, 0x00])
        #expect(decoder.reset() == [0x10, 0x00])
        #expect(decoder.pendingRequests.isEmpty)
        #expect(decoder.feed([0x12]) == [.discarded([0x12])])
    }

    /// A million random inputs: the decoder never traps, every byte is accounted for exactly once
    /// (reported, discarded, XON/XOFF, or still partial), and the pending queue stays bounded.
    @Test func fuzzOneMillionRandomInputs() {
        var rng = SplitMix64(seed: 0xC1_0B)
        let profiles = [epson, custom, citizen]
        let sources: [StatusSource] = [.dleEot1, .dleEot2, .dleEot3, .dleEot4, .gsR1, .customFull]
        var decoder = StatusDecoder(map: epson.status)
        var fed = 0
        var accounted = 0
        for round in 0..<1_000_000 {
            if round % 50_000 == 0 {
                accounted += decoder.reset().count
                #expect(accounted == fed)
                decoder = StatusDecoder(map: profiles[round / 50_000 % 3].status)
                fed = 0
                accounted = 0
            }
            if rng.next() % 3 == 0 { decoder.expect(sources[Int(rng.next() % 6)]) }
            let length = Int(rng.next() % 8)
            var bytes = [UInt8](repeating: 0, count: length)
            for i in 0..<length {
                // Bias towards bytes that look like status so every parser path is exercised.
                let r = rng.next()
                bytes[i] = r % 4 == 0 ? UInt8(truncatingIfNeeded: r >> 8) : UInt8(truncatingIfNeeded: r >> 8) & 0x7F
            }
            fed += length
            for event in decoder.feed(bytes) {
                switch event {
                case .report(let r):
                    accounted += r.bytes.count + (r.source == .customFull ? 2 : 0)
                case .discarded(let d): accounted += d.count
                case .xon, .xoff: accounted += 1
                }
            }
            #expect(decoder.pendingRequests.count <= StatusDecoder.maxPending)
        }
        accounted += decoder.reset().count
        #expect(accounted == fed)
    }
}
